// Placeholder: the CLI issue replaces this with an esbuild bundle of the CLI.
