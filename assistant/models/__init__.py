"""Model backends behind one small interface, and wrappers that add behaviour to any backend."""

from assistant.models.base import ChatMessage, ChatReply, ChatRequest, Metrics, ModelBackend, ToolCall

__all__ = ["ChatMessage", "ChatReply", "ChatRequest", "Metrics", "ModelBackend", "ToolCall"]
