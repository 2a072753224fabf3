package printers

// nodePalette are the colours that tell nodes apart in a multi-node
// watch: none of the row colours that flag events (red, green, yellow,
// faint).
var nodePalette = []Color{
	"\x1b[36m", "\x1b[35m", "\x1b[34m", // cyan, magenta, blue
	"\x1b[96m", "\x1b[95m", "\x1b[94m", // their bright forms
	"\x1b[1;36m", "\x1b[1;35m", "\x1b[1;34m", // and bold
}

// nodeColors gives each node its colour in the order the nodes first
// show up; past the palette, colours repeat.
type nodeColors map[string]Color

// of returns node's colour, giving it the next one when it is new.
func (n nodeColors) of(node string) Color {
	c, ok := n[node]
	if !ok {
		c = nodePalette[len(n)%len(nodePalette)]
		n[node] = c
	}
	return c
}
