"""Model backends behind one small interface, and wrappers that add behaviour to any backend."""

from assistant.models.base import (
    CallSettings, ModelProfile, ChatMessage, ChatReply, ChatRequest, ModelBackend, ToolCall, Usage,
)

__all__ = ["CallSettings", "ChatMessage", "ChatReply", "ChatRequest", "ModelBackend", "ModelProfile", "ToolCall", "Usage"]
