package replay

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// PrintReport writes the report on the recording in file as a table of
// agent processes, then each difference with the recorded and the
// replayed event as JSON.
func PrintReport(w io.Writer, file string, r Report) error {
	fmt.Fprintf(w, "Replayed %s: %d agent processes, %d differences.\n\n", file, len(r.Processes), r.Differences())
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "EVENTS\tINPUTS\tCONFIG\tPLEG\tDIFFERENCES\tNOTE")
	for _, p := range r.Processes {
		note := p.NotReplayed
		if note != "" {
			note = "not replayed: " + note
		} else if p.Unrecorded > 0 {
			note = fmt.Sprintf("%d events after the recording's end, not compared", p.Unrecorded)
		}
		fmt.Fprintf(tw, "%d-%d\t%d\t%d\t%d\t%d\t%s\n", p.From, p.To, p.Inputs, p.Config, p.PLEG, len(p.Differences), note)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, p := range r.Processes {
		for _, d := range p.Differences {
			fmt.Fprintln(w)
			switch {
			case d.Recorded == nil:
				fmt.Fprintln(w, "The replay made an event the agent did not record:")
			case d.Replayed == nil:
				fmt.Fprintf(w, "Event %d was recorded, and the replay did not make it:\n", d.Recorded.Seq)
			default:
				fmt.Fprintf(w, "Event %d differs:\n", d.Recorded.Seq)
			}
			for _, e := range []struct {
				name string
				e    *v1alpha1.Event
			}{{"recorded", d.Recorded}, {"replayed", d.Replayed}} {
				if e.e == nil {
					continue
				}
				b, err := json.Marshal(e.e)
				if err != nil {
					return err
				}
				fmt.Fprintf(w, "  %s: %s\n", e.name, b)
			}
		}
	}
	return nil
}
