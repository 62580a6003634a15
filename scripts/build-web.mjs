// Placeholder: the dashboard issue replaces this with the dashboard's build into dist/web.
