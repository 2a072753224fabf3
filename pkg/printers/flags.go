package printers

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/printers"
)

// PrintFlags composes the output flags of a command the way kubectl get
// does: -o (wide, json, yaml, jsonpath, go-template and their -file forms),
// --no-headers, --show-kind, --template, --allow-missing-template-keys, and
// --color.
type PrintFlags struct {
	JSONYamlPrintFlags *genericclioptions.JSONYamlPrintFlags
	TemplateFlags      *genericclioptions.KubeTemplatePrintFlags

	OutputFormat string
	NoHeaders    bool
	ShowKind     bool
	Color        string

	// Kind names the objects for --show-kind; empty hides the flag.
	Kind schema.GroupKind
}

// NewPrintFlags returns the flags with kubectl's defaults.
func NewPrintFlags() *PrintFlags {
	return &PrintFlags{
		JSONYamlPrintFlags: genericclioptions.NewJSONYamlPrintFlags(),
		TemplateFlags:      genericclioptions.NewKubeTemplatePrintFlags(),
		Color:              string(ColorAuto),
	}
}

// AllowedFormats returns the values -o accepts.
func (f *PrintFlags) AllowedFormats() []string {
	out := []string{"wide"}
	out = append(out, f.JSONYamlPrintFlags.AllowedFormats()...)
	return append(out, f.TemplateFlags.AllowedFormats()...)
}

// AddFlags binds the flags to cmd.
func (f *PrintFlags) AddFlags(cmd *cobra.Command) {
	cmd.Flags().StringVarP(&f.OutputFormat, "output", "o", f.OutputFormat, fmt.Sprintf("Output format. One of: (%s).", strings.Join(f.AllowedFormats(), ", ")))
	cmd.Flags().BoolVar(&f.NoHeaders, "no-headers", f.NoHeaders, "When using the default or wide output format, don't print headers.")
	cmd.Flags().StringVar(&f.Color, "color", f.Color, "Color rows that need attention: auto (only on a terminal), always or never.")
	if !f.Kind.Empty() {
		cmd.Flags().BoolVar(&f.ShowKind, "show-kind", f.ShowKind, "If present, list the resource type for the requested object(s).")
	}
	f.TemplateFlags.AddFlags(cmd)
	_ = cmd.RegisterFlagCompletionFunc("output", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return f.AllowedFormats(), cobra.ShellCompDirectiveNoFileComp
	})
	_ = cmd.RegisterFlagCompletionFunc("color", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{string(ColorAuto), string(ColorAlways), string(ColorNever)}, cobra.ShellCompDirectiveNoFileComp
	})
}

// format returns the output format, go-template when only --template was
// given.
func (f *PrintFlags) format() string {
	if f.OutputFormat == "" && f.TemplateFlags.TemplateArgument != nil && *f.TemplateFlags.TemplateArgument != "" {
		return "go-template"
	}
	return f.OutputFormat
}

// IsHuman reports whether the output is a table.
func (f *PrintFlags) IsHuman() bool {
	o := f.format()
	return o == "" || o == "wide"
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
		return &HumanPrinter{
			Options: printers.PrintOptions{NoHeaders: f.NoHeaders, Wide: f.format() == "wide", WithKind: f.ShowKind, Kind: f.Kind},
			Color:   color, Now: now, ErrOut: errOut,
		}, nil
	}
	p, err := f.ToGenericPrinter()
	if err != nil {
		return nil, err
	}
	return &GenericPrinter{Delegate: p}, nil
}

// ToGenericPrinter returns the printer of a machine-readable format: the
// cli-runtime printers, made safe for a terminal (machine.go).
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
	name := o
	if i := strings.Index(name, "="); i >= 0 {
		name = name[:i]
	}
	if slices.Contains(f.AllowedFormats(), name) {
		return nil, fmt.Errorf("-o %s needs a template: -o %s=TEMPLATE or --template", o, name)
	}
	return nil, fmt.Errorf("unable to match a printer suitable for the output format %q, allowed formats are: %s", o, strings.Join(f.AllowedFormats(), ","))
}
