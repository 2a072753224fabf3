package agent

import "regexp"

// objectDump matches where the kubelet's decoder prints a whole object it
// decoded from a manifest that is not a pod ("invalid pod: &core.Secret{...",
// "invalid pods list: &core.ConfigMap{..."): from the object's type to the
// end of the message, since the dump's own end cannot be told apart.
var objectDump = regexp.MustCompile(`(invalid (?:pod|pods list): &[A-Za-z0-9_]+\.[A-Za-z0-9_]+)\{.*`)

// cutObjectDump returns a rejected manifest's error without the object
// the kubelet's message prints in full: a Secret or ConfigMap put where
// static pods belong would otherwise be served to anyone who reaches the
// port. --expose-pod-specs keeps it.
func cutObjectDump(msg string) string {
	return objectDump.ReplaceAllString(msg, "$1{...} (the object is served only with --expose-pod-specs)")
}
