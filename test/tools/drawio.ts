// Reading a draw.io file back in tests (the dashboard's architecture export): its mxCells and
// diagram name, parsed by fast-xml-parser (which also decodes the entities) after checking the
// XML is well-formed. Used by the model's unit test and the end-to-end download test.
import assert from "node:assert/strict";
import { XMLParser, XMLValidator } from "fast-xml-parser";

export interface Cell {
  id: string;
  value?: string;
  style?: string;
  parent?: string;
  vertex?: string;
  edge?: string;
  source?: string;
  target?: string;
}

export function parseDrawio(xml: string): { cells: Cell[]; diagramName: string } {
  assert.equal(XMLValidator.validate(xml), true, "well-formed XML");
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: "",
    parseAttributeValue: false,
    isArray: (name) => name === "mxCell",
    htmlEntities: true,
  });
  const document = parser.parse(xml) as {
    mxfile: { diagram: { name: string; mxGraphModel: { root: { mxCell: Cell[] } } } };
  };
  return {
    cells: document.mxfile.diagram.mxGraphModel.root.mxCell,
    diagramName: document.mxfile.diagram.name,
  };
}
