package cli

import (
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/podsrc/podsrc/pkg/printers"
)

// watchDisplayFlags are watch's flags for how its live table looks.
type watchDisplayFlags struct {
	Timestamps string
}

// AddFlags binds the flags to cmd.
func (f *watchDisplayFlags) AddFlags(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.Timestamps, "timestamps", string(printers.TimeLocal), "How the TIME column shows when events happened: "+strings.Join(printers.TimeFormats, ", ")+" (the time since watch started; negative for events from before). local and utc show the date when the day changes.")
	_ = cmd.RegisterFlagCompletionFunc("timestamps", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return printers.TimeFormats, cobra.ShellCompDirectiveNoFileComp
	})
}

// ToDisplay returns how the table looks for a watch started at start;
// several says whether several nodes may show, which then get their own
// colours.
func (f *watchDisplayFlags) ToDisplay(start time.Time, several bool) (printers.WatchDisplay, error) {
	format, err := printers.ParseTimeFormat(f.Timestamps)
	if err != nil {
		return printers.WatchDisplay{}, err
	}
	return printers.WatchDisplay{Times: format, Start: start, NodeColors: several}, nil
}

// severalNodes says whether the selection may cover more than one node.
func severalNodes(nf *NodeFlags, o *CommonOptions) bool {
	return !o.Direct() && (len(nf.Names) > 1 || nf.Selecting())
}
