"""The edges' small protocols, each with a no-op base, and the one clock and id source:
``performer`` (``Performer``, ``BasePerformer``), ``presenter`` (``Presenter``), ``clock``
(``ms_clock``, ``new_id``, stamping). Above ``_core`` and ``_loop``, below everything
that performs or delivers."""
