package printers

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/kubectl/pkg/cmd/get"
)

// PrintFlags are kubectl get's print flags (get.PrintFlags: -o in all its
// forms, --no-headers, --template, --sort-by, -L, --show-labels,
// --show-kind) plus --color. Each command offers the flags that fit what
// it prints: Objects adds -o name and -o custom-columns, List those and
// --sort-by, Labels adds -L and --show-labels, and a Kind
// (HumanReadableFlags.SetKind) adds --show-kind.
type PrintFlags struct {
	*get.PrintFlags
	Color string

	// List says the command prints a list of objects, not a stream.
	List bool
	// Objects says the command prints objects one at a time (a stream, or
	// one object), each of which -o name and -o custom-columns can print.
	Objects bool
	// Labels says the objects have labels.
	Labels bool
	// Columns, when set, are the columns of the command's table, which
	// complete -o custom-columns=.
	Columns []ColumnInfo
}

// NewPrintFlags returns the flags with kubectl's defaults.
func NewPrintFlags() *PrintFlags {
	return &PrintFlags{PrintFlags: get.NewGetPrintFlags(), Color: string(ColorAuto)}
}

// AllowedFormats returns the values -o accepts.
func (f *PrintFlags) AllowedFormats() []string {
	out := []string{"wide"}
	out = append(out, f.JSONYamlPrintFlags.AllowedFormats()...)
	if f.objects() {
		out = append(out, f.NamePrintFlags.AllowedFormats()...)
	}
	out = append(out, f.TemplateFlags.AllowedFormats()...)
	if f.objects() {
		out = append(out, f.CustomColumnsFlags.AllowedFormats()...)
	}
	return out
}

// AddFlags binds the flags to cmd.
func (f *PrintFlags) AddFlags(cmd *cobra.Command) {
	cmd.Flags().StringVarP(f.OutputFormat, "output", "o", *f.OutputFormat, fmt.Sprintf("Output format. One of: (%s).", strings.Join(f.AllowedFormats(), ", ")))
	headers := "When using the default or wide output format, don't print headers."
	if f.objects() {
		headers = "When using the default, wide or custom-columns output format, don't print headers."
	}
	cmd.Flags().BoolVar(f.NoHeaders, "no-headers", *f.NoHeaders, headers)
	cmd.Flags().StringVar(&f.Color, "color", f.Color, "Color rows that need attention: auto (only on a terminal), always or never.")
	h := f.HumanReadableFlags
	if h.Kind.Empty() {
		h.ShowKind = nil
	}
	if !f.List {
		h.SortBy = nil
	}
	if !f.Labels {
		h.ShowLabels, h.ColumnLabels = nil, nil
	}
	h.AddFlags(cmd)
	f.TemplateFlags.AddFlags(cmd)
	_ = cmd.RegisterFlagCompletionFunc("output", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return append(f.AllowedFormats(), f.customColumns()...), cobra.ShellCompDirectiveNoFileComp
	})
	_ = cmd.RegisterFlagCompletionFunc("color", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{string(ColorAuto), string(ColorAlways), string(ColorNever)}, cobra.ShellCompDirectiveNoFileComp
	})
}

// format returns the output format, go-template when only --template was
// given.
func (f *PrintFlags) format() string {
	if *f.OutputFormat == "" && f.TemplateFlags.TemplateArgument != nil && *f.TemplateFlags.TemplateArgument != "" {
		return "go-template"
	}
	return *f.OutputFormat
}

// objects reports whether -o name and -o custom-columns fit what the
// command prints.
func (f *PrintFlags) objects() bool { return f.List || f.Objects }

// IsHuman reports whether the output is a table.
func (f *PrintFlags) IsHuman() bool {
	o := f.format()
	return o == "" || o == "wide"
}

// sortBy returns --sort-by, empty when the command has no such flag.
func (f *PrintFlags) sortBy() string {
	if f.HumanReadableFlags.SortBy == nil {
		return ""
	}
	return *f.HumanReadableFlags.SortBy
}

// itemwise reports whether the format prints each object on its own
// (name, custom-columns).
func (f *PrintFlags) itemwise() bool {
	o := f.format()
	if i := strings.Index(o, "="); i >= 0 {
		o = o[:i]
	}
	return f.objects() && (slices.Contains(f.NamePrintFlags.AllowedFormats(), o) || slices.Contains(f.CustomColumnsFlags.AllowedFormats(), o))
}

// ColorEnabled resolves --color for out.
func (f *PrintFlags) ColorEnabled(out io.Writer) (bool, error) {
	return ColorMode(f.Color).Enabled(out)
}

// ToPrinter returns the printer the flags ask for; out is where it will
// write (for --color auto) and errOut where "No resources found." goes.
func (f *PrintFlags) ToPrinter(out, errOut io.Writer, now func() time.Time) (Printer, error) {
	// --color is checked whatever the format, as kubectl checks its flags.
	color, err := f.ColorEnabled(out)
	if err != nil {
		return nil, err
	}
	if f.IsHuman() {
		f.HumanReadableFlags.NoHeaders = *f.NoHeaders
		format, flags := f.format(), *f.HumanReadableFlags
		delegate := func() (printers.ResourcePrinter, error) { return flags.ToPrinter(format) }
		if _, err := delegate(); err != nil {
			return nil, err
		}
		return &HumanPrinter{Delegate: delegate, Wide: format == "wide", NoHeaders: *f.NoHeaders, SortBy: f.sortBy(), Color: color, Now: now, ErrOut: errOut}, nil
	}
	p, err := f.ToGenericPrinter()
	if err != nil {
		return nil, err
	}
	return &GenericPrinter{Delegate: p, Itemwise: f.itemwise(), Names: f.format() == "name", SortBy: f.sortBy()}, nil
}

// ToGenericPrinter returns the printer of a machine-readable format: the
// cli-runtime and kubectl printers, made safe for a terminal (machine.go).
func (f *PrintFlags) ToGenericPrinter() (printers.ResourcePrinter, error) {
	o := f.format()
	if p, err := f.JSONYamlPrintFlags.ToPrinter(o); !genericclioptions.IsNoCompatiblePrinterError(err) {
		if err != nil {
			return nil, err
		}
		return encodedPrinter{delegate: p}, nil
	}
	if p, err := f.TemplateFlags.ToPrinter(o); !genericclioptions.IsNoCompatiblePrinterError(err) {
		if err != nil {
			return nil, err
		}
		return templatePrinter{delegate: p}, nil
	}
	if f.objects() {
		f.CustomColumnsFlags.NoHeaders = *f.NoHeaders
		if f.TemplateFlags.TemplateArgument != nil {
			f.CustomColumnsFlags.TemplateArgument = *f.TemplateFlags.TemplateArgument
		}
		if p, err := f.CustomColumnsFlags.ToPrinter(o); !genericclioptions.IsNoCompatiblePrinterError(err) {
			if err != nil {
				return nil, fmt.Errorf("-o %s: %w", o, err)
			}
			return p, nil
		}
		if p, err := f.NamePrintFlags.ToPrinter(o); !genericclioptions.IsNoCompatiblePrinterError(err) {
			return p, err
		}
	}
	name := o
	if i := strings.Index(name, "="); i >= 0 {
		name = name[:i]
	}
	if slices.Contains(f.AllowedFormats(), name) {
		return nil, fmt.Errorf("-o %s needs a template: -o %s=TEMPLATE or --template", o, name)
	}
	return nil, fmt.Errorf("unable to match a printer suitable for the output format %q, allowed formats are: %s", o, strings.Join(f.AllowedFormats(), ","))
}

// customColumns returns the -o custom-columns= values that print the
// columns of the command's table that have a path: the default ones, then
// all of them.
func (f *PrintFlags) customColumns() []string {
	if !f.objects() || len(f.Columns) == 0 {
		return nil
	}
	var narrow, all []string
	for _, c := range f.Columns {
		if c.Path == "" {
			continue
		}
		spec := strings.ToUpper(strings.ReplaceAll(c.Header, " ", "_")) + ":" + c.Path
		all = append(all, spec)
		if !c.Wide {
			narrow = append(narrow, spec)
		}
	}
	return []string{"custom-columns=" + strings.Join(narrow, ","), "custom-columns=" + strings.Join(all, ",")}
}
