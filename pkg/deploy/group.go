package deploy

import "sort"

// Group is the nodes of one layout, deployed as one DaemonSet.
type Group struct {
	Layout Layout
	Nodes  []string
	// Default is the group of the most common layout: its DaemonSet runs on
	// every node no other group names, nodes added later included.
	Default bool
}

// GroupByLayout groups nodes by layout. The default group comes first, then
// the others by their layout's hash; nodes are sorted in each. Without
// nodes there is one default group of the fallback layout, so that nodes
// added later are covered.
func GroupByLayout(nodes []NodeLayout, fallback Layout) []Group {
	byHash := map[string]*Group{}
	for _, n := range nodes {
		h := n.Layout.Hash()
		g := byHash[h]
		if g == nil {
			g = &Group{Layout: n.Layout}
			byHash[h] = g
		}
		g.Nodes = append(g.Nodes, n.Node)
	}
	if len(byHash) == 0 {
		return []Group{{Layout: fallback, Default: true}}
	}
	groups := make([]Group, 0, len(byHash))
	for _, g := range byHash {
		sort.Strings(g.Nodes)
		groups = append(groups, *g)
	}
	// The most nodes first; equal counts by hash, so that the choice is
	// the same on every run.
	sort.Slice(groups, func(i, j int) bool {
		if len(groups[i].Nodes) != len(groups[j].Nodes) {
			return len(groups[i].Nodes) > len(groups[j].Nodes)
		}
		return groups[i].Layout.Hash() < groups[j].Layout.Hash()
	})
	groups[0].Default = true
	rest := groups[1:]
	sort.Slice(rest, func(i, j int) bool { return rest[i].Layout.Hash() < rest[j].Layout.Hash() })
	return groups
}
