"""_loop: see DESIGN.md, Layout."""
