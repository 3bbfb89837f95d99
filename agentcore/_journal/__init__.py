"""_journal: see DESIGN.md, Layout."""
