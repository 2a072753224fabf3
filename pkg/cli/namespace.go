package cli

// targetNamespace is the namespace a command that takes -n works in: -n, else
// the namespace the kubeconfig's context sets, as kubectl takes it; ""
// (every namespace) when all (-A) is given, with --agent-url (no cluster
// is configured) or when neither -n nor the context names one. A
// kubeconfig that does not load sets none: the command reports it when it
// reaches the cluster.
func (o *CommonOptions) targetNamespace(all bool) string {
	if o.ConfigFlags.Namespace != nil && *o.ConfigFlags.Namespace != "" {
		return *o.ConfigFlags.Namespace
	}
	if all || o.Direct() {
		return ""
	}
	raw, err := o.ConfigFlags.ToRawKubeConfigLoader().RawConfig()
	if err != nil {
		return ""
	}
	name := raw.CurrentContext
	if o.ConfigFlags.Context != nil && *o.ConfigFlags.Context != "" {
		name = *o.ConfigFlags.Context
	}
	if c, ok := raw.Contexts[name]; ok {
		return c.Namespace
	}
	return ""
}
