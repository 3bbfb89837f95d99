"""The skeleton every vendor package shares: the streaming driver, its call and retry loop,
the text guard, the normaliser interface, history clean-up, structured output and error
classification, plus the private halves of ``drivers.testing``.

Nothing here imports a vendor package; each vendor package imports only from here (a test
in tests/drivers/test_layout.py holds both rules).
"""
