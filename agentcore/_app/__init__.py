"""_app: see DESIGN.md, Layout."""
