package admission

import (
	"testing"

	v1 "k8s.io/api/core/v1"
)

func TestNodeKubeletVersion(t *testing.T) {
	tests := []struct {
		name, nodeInfo, want string
	}{
		{name: "the node's", nodeInfo: "v1.36.3", want: "1.36.3"},
		{name: "none: the linked kubelet's", nodeInfo: "", want: "1.37.2"},
		{name: "garbage: the linked kubelet's", nodeInfo: "v1.x", want: "1.37.2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := &v1.Node{Status: v1.NodeStatus{NodeInfo: v1.NodeSystemInfo{KubeletVersion: tt.nodeInfo}}}
			if got := NodeKubeletVersion(n, "v1.37.2").String(); got != tt.want {
				t.Errorf("NodeKubeletVersion = %s, want %s", got, tt.want)
			}
		})
	}
}
