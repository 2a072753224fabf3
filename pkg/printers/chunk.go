package printers

import "io"

// ChunkPrinter is a Printer that can also take the answers of nodes one
// node at a time, as they come, under one header: the first table's rows
// (or, for -o name and -o custom-columns, the items) of each answer, then,
// once all nodes are done, the tables that follow the first. -o name and
// -o custom-columns print each chunk at once; a table holds its rows,
// rendered, and aligns them all to the widest cell in PrintRest, as
// kubectl get does, whichever node answered last.
type ChunkPrinter interface {
	// PrintChunk takes the first table of p, one node's answer; keep
	// says PrintRest needs the answer (it has tables after the first),
	// else the caller may let it go.
	PrintChunk(p Printable, w io.Writer) (keep bool, err error)
	// PrintRest prints the rows held, what follows the first table of
	// all, the answers of all nodes: "No resources found." when no chunk
	// had rows, and the other tables.
	PrintRest(all Printable, w io.Writer) error
}

// AsChunkPrinter returns p as a ChunkPrinter when its output can be
// printed node by node: a table, -o name or -o custom-columns, without
// --sort-by. The other formats need all the answers: --sort-by orders
// them, and -o json, yaml, jsonpath and go-template print one List.
func AsChunkPrinter(p Printer) (ChunkPrinter, bool) {
	switch p := p.(type) {
	case *HumanPrinter:
		return p, p.SortBy == ""
	case *GenericPrinter:
		return p, p.Itemwise && p.SortBy == ""
	}
	return nil, false
}
