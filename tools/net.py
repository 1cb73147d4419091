"""Network failures in words a person reads: shared by the tools and the assistant's own checks."""

from __future__ import annotations


def plain_error(e: BaseException) -> str:
    """Why a connection failed, in words a person reads (not an exception's class name)."""
    import asyncio

    if isinstance(e, (asyncio.TimeoutError, TimeoutError)):
        return "no answer in time"
    names = {k.__name__ for k in type(e).__mro__}
    if "ClientConnectorDNSError" in names or "gaierror" in names:
        return "the name does not resolve: offline, or a wrong host name"
    if names & {"ClientConnectorError", "ConnectionRefusedError", "ConnectError"}:
        return "connection refused: nothing listens there"
    if names & {"ServerDisconnectedError", "ClientPayloadError", "RemoteProtocolError"}:
        return "the server closed the connection"
    if names & {"InvalidURL", "InvalidUrlClientError"}:
        return "not a valid URL"
    text = " ".join(str(e).split())
    return text[:120] or "the connection failed"
