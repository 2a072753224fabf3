package redact

import "strings"

// CommandLine returns args, a command line, without its credentials: the
// value of the flag urlFlag (a static pod URL) masked as MaskURL masks it,
// each value of the flag headerFlag (an HTTP header, "Name: value") with
// its value replaced by Masked, and any other URL in an argument masked
// (MaskURLs). A flag's value may be in the flag's argument (--flag=value)
// or the next.
func CommandLine(args []string, urlFlag, headerFlag string) []string {
	out := make([]string, len(args))
	pending := "" // the flag whose value is the next argument
	for i, arg := range args {
		if pending != "" {
			out[i], pending = maskFlagValue(pending == urlFlag, arg), ""
			continue
		}
		out[i] = MaskURLs(arg)
		if !strings.HasPrefix(arg, "-") {
			continue
		}
		name, value, inline := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		if name != urlFlag && name != headerFlag {
			continue
		}
		if !inline {
			pending = name
			continue
		}
		out[i] = arg[:len(arg)-len(value)] + maskFlagValue(name == urlFlag, value)
	}
	return out
}

// maskFlagValue masks the value of a URL flag (isURL) or of a header flag.
func maskFlagValue(isURL bool, value string) string {
	if isURL {
		return MaskURL(value)
	}
	if name, _, ok := strings.Cut(value, ":"); ok {
		return name + ": " + Masked
	}
	return Masked
}
