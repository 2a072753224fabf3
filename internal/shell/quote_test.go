package shell

import "testing"

func TestQuote(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/etc/kubernetes/manifests/etcd.yaml", "/etc/kubernetes/manifests/etcd.yaml"},
		{"registry.example/app:1", "registry.example/app:1"},
		{"http://config.example/pods?a=1&b=2", "'http://config.example/pods?a=1&b=2'"},
		{"/etc/k/a b.yaml", "'/etc/k/a b.yaml'"},
		{"x; rm -rf /", "'x; rm -rf /'"},
		{"$(reboot)", "'$(reboot)'"},
		{"`id`", "'`id`'"},
		{"it's", `'it'\''s'`},
		{`"q"`, `'"q"'`},
		{"a\nb", "'a\nb'"},
		{"-rf", "'-rf'"},
		{"--server=https://127.0.0.1:18445", "'--server=https://127.0.0.1:18445'"},
		{"", "''"},
	}
	for _, tc := range tests {
		if got := Quote(tc.in); got != tc.want {
			t.Errorf("Quote(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
