package printers

// TableReference is one table kubectl podsrc prints, for the docs' column
// reference: the commands that print it and its columns.
type TableReference struct {
	Commands []string
	Columns  []ColumnInfo
}

// TableReferences are the tables kubectl podsrc prints, each from its
// column list. The pods table is the one of a single node: with several,
// NODE is shown without -o wide too.
func TableReferences() []TableReference {
	return []TableReference{
		{Commands: []string{"kubectl podsrc pods"}, Columns: PodColumns(false).Reference()},
		{Commands: []string{"kubectl podsrc watch", "kubectl podsrc events"}, Columns: WatchColumns().Reference()},
		{Commands: []string{"kubectl podsrc sources"}, Columns: SourceColumns().Reference()},
		{Commands: []string{"kubectl podsrc pleg"}, Columns: PLEGColumns().Reference()},
		{Commands: []string{"kubectl podsrc why --all"}, Columns: WhyColumns().Reference()},
	}
}
