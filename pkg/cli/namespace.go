package cli

import "fmt"

// targetNamespace is the namespace a command that takes -n works in: -n, else
// the namespace the kubeconfig's context sets, as kubectl takes it; ""
// (every namespace) when all (-A) is given, with --agent-url (no cluster
// is configured) or when neither -n nor the context names one. A context
// that the kubeconfig does not have (--context nosuch) fails, as kubectl
// does, with cli-runtime's error; a kubeconfig that does not load sets
// none: the command reports it when it reaches the cluster.
func (o *CommonOptions) targetNamespace(all bool) (string, error) {
	if o.ConfigFlags.Namespace != nil && *o.ConfigFlags.Namespace != "" {
		return *o.ConfigFlags.Namespace, nil
	}
	if all || o.Direct() {
		return "", nil
	}
	loader := o.ConfigFlags.ToRawKubeConfigLoader()
	raw, err := loader.RawConfig()
	if err != nil {
		return "", nil
	}
	name := raw.CurrentContext
	if o.ConfigFlags.Context != nil && *o.ConfigFlags.Context != "" {
		name = *o.ConfigFlags.Context
	}
	c, ok := raw.Contexts[name]
	switch {
	case ok:
		return c.Namespace, nil
	case name == "":
		return "", nil
	}
	if _, err := loader.ClientConfig(); err != nil {
		return "", fmt.Errorf("loading the cluster's configuration: %w", err)
	}
	return "", fmt.Errorf("loading the cluster's configuration: context %q does not exist", name)
}
