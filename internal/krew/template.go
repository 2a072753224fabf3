package krew

import (
	"bytes"
	"fmt"
	"strings"

	"sigs.k8s.io/yaml"
)

// TagName is what the krew release bot's template replaces with the
// release's tag.
const TagName = "{{ .TagName }}"

// Template returns p as a template for the krew release bot
// (rajatjindal/krew-release-bot), which renders it for each new tag and
// proposes the result to krew-index: version is replaced by the tag
// everywhere, and each platform's uri and sha256 by the bot's addURIAndSha,
// which downloads the release's archive to sum it.
func Template(p Plugin, version string) ([]byte, error) {
	t := p
	t.Spec.Version = TagName
	t.Spec.Platforms = nil
	var uris []string
	for _, pl := range p.Spec.Platforms {
		uri := strings.ReplaceAll(pl.URI, version, TagName)
		uris = append(uris, uri)
		// Marked here, replaced below: yaml marshals fields in order.
		pl.URI, pl.Sha256 = "", ""
		t.Spec.Platforms = append(t.Spec.Platforms, pl)
	}
	for _, s := range []string{t.Spec.ShortDescription, t.Spec.Description, t.Spec.Caveats, t.Spec.Homepage} {
		if strings.Contains(s, version) {
			return nil, fmt.Errorf("%q names version %s, which the template cannot replace", s, version)
		}
	}
	data, err := yaml.Marshal(t)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	next := 0
	for _, line := range strings.SplitAfter(string(data), "\n") {
		trimmed := strings.TrimSpace(line)
		indent := line[:len(line)-len(strings.TrimLeft(line, " "))]
		switch {
		case trimmed == `sha256: ""`:
			continue
		case trimmed == `uri: ""`:
			if next >= len(uris) {
				return nil, fmt.Errorf("more uri lines than platforms")
			}
			fmt.Fprintf(&out, "%s{{ addURIAndSha %q .TagName }}\n", indent, uris[next])
			next++
		default:
			out.WriteString(line)
		}
	}
	if next != len(uris) {
		return nil, fmt.Errorf("%d uri lines for %d platforms", next, len(uris))
	}
	return out.Bytes(), nil
}
