"""The canvas room: the node editor's scene (cards, ports, edges), moving around it,
editing on it, the story step painted over it, and the palette and Tab popup that add
nodes to it."""
