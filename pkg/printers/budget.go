package printers

// Budget is the command's bound on what it holds of what agents sent,
// shared with the reading of their answers (client.Budget): a printer that
// holds what it prints at the end draws from it.
type Budget interface {
	// Take charges n bytes, reporting whether they fit.
	Take(n int64) bool
	// Give gives back n bytes Take charged.
	Give(n int64)
	// String is the budget's size, as --max-bytes takes it.
	String() string
}
