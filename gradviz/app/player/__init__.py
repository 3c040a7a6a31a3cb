"""The player room: stepping through the story of the backward pass (the player bar and
where the canvas looks), element provenance, presentation mode and the lessons."""
