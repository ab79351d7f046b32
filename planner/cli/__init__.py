"""The command-line interface (Typer): flags in, one library call, rendering out."""
