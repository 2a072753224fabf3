package cli

import (
	"strings"
)

// canonical returns values with each one that names an element of allowed
// regardless of case spelled as allowed spells it, a leading ! kept, so
// that every enum flag is case-insensitive (--type=containerdied); values
// that name none are left for the query's check to refuse.
func canonical(values, allowed []string) []string {
	if values == nil {
		return nil
	}
	out := make([]string, len(values))
	for i, v := range values {
		bang := ""
		if rest, ok := strings.CutPrefix(v, "!"); ok {
			bang, v = "!", rest
		}
		for _, a := range allowed {
			if strings.EqualFold(v, a) {
				v = a
				break
			}
		}
		out[i] = bang + v
	}
	return out
}
