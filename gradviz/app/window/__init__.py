"""The window room: the main window that holds the other rooms as its centre and docks,
its menus and toolbar, the file workflow, recent files and crash recovery, the code view
and the keys that belong to fields."""
