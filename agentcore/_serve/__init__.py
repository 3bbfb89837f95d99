"""``agentcore serve``: agents over HTTP, streamed as Server-Sent Events (see docs/serve.md).

``protocol`` holds the pure parts (the wire-protocol interface, SSE framing, event ids);
``feed`` fans an agent's outputs out to many clients; ``app`` is the ASGI application
(starlette, imported only when an app is built: ``pip install 'agentcore-engine[serve]'``).
"""
