// Text broken into lines at spaces, for help texts (the CLI's and the service's), so a long
// description wraps under its option the same way everywhere.

/** `text` broken into lines of at most `width` columns, at spaces. */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line !== "" && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line === "" ? word : `${line} ${word}`;
    }
  }
  lines.push(line);
  return lines;
}
