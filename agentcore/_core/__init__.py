"""_core: see DESIGN.md, Layout."""
