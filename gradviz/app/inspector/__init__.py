"""The inspector room: the dock that shows the selected node's (or the document's)
properties, its fields, and the small grid that edits one tensor."""
