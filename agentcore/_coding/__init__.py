"""Coding tools (files, shell, search, web) confined to a workspace; see ``agentcore.coding``.

Shell code: these modules touch files, processes and the network. The pure parts (output
truncation, the edit matcher, the bash guard) live in their own modules and take no I/O,
so they can be property-tested on their own.
"""
