#!/usr/bin/env bash
# pki.sh: the cluster's certificates, made afresh by every `up`, and the
# kubeconfigs that use them. Sourced by hack/cluster.sh; expects PKI,
# NODE_NAME and the addresses of lib/cluster.sh.

# gen_cert NAME CN ORG SANS: a key and a certificate signed by the cluster CA,
# valid for server and client use.
gen_cert() {
	local name=$1 cn=$2 org=$3 sans=$4 subj
	subj="/CN=$cn"
	[[ -n "$org" ]] && subj="/O=$org$subj"
	openssl req -new -nodes -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
		-keyout "$PKI/$name.key" -out "$PKI/$name.csr" -subj "$subj" 2>/dev/null
	{
		echo "basicConstraints=critical,CA:FALSE"
		echo "keyUsage=critical,digitalSignature,keyEncipherment"
		echo "extendedKeyUsage=serverAuth,clientAuth"
		[[ -n "$sans" ]] && echo "subjectAltName=$sans"
	} >"$PKI/$name.ext"
	openssl x509 -req -in "$PKI/$name.csr" -CA "$PKI/ca.crt" -CAkey "$PKI/ca.key" \
		-set_serial "0x$(openssl rand -hex 8)" -days 3650 -extfile "$PKI/$name.ext" \
		-out "$PKI/$name.crt" 2>/dev/null
	rm -f "$PKI/$name.csr" "$PKI/$name.ext"
}

gen_pki() {
	rm -rf "$PKI"
	mkdir -p "$PKI"
	chmod 700 "$PKI"
	openssl req -x509 -new -nodes -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
		-keyout "$PKI/ca.key" -out "$PKI/ca.crt" -days 3650 -subj "/CN=podsrc-ca" 2>/dev/null
	gen_cert apiserver kube-apiserver "" \
		"DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local,DNS:localhost,IP:127.0.0.1,IP:$NODE_IP,IP:$POD_GATEWAY,IP:$SERVICE_IP"
	gen_cert apiserver-kubelet-client kube-apiserver-kubelet-client system:masters ""
	gen_cert admin podsrc-admin system:masters ""
	gen_cert controller-manager system:kube-controller-manager "" ""
	gen_cert scheduler system:kube-scheduler "" ""
	gen_cert kubelet-client "system:node:$NODE_NAME" system:nodes ""
	gen_cert kubelet-server "$NODE_NAME" "" "DNS:$NODE_NAME,IP:$NODE_IP,IP:127.0.0.1"
	openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$PKI/sa.key" 2>/dev/null
	openssl pkey -in "$PKI/sa.key" -pubout -out "$PKI/sa.pub" 2>/dev/null
}

# write_kubeconfig FILE SERVER CERTNAME
write_kubeconfig() {
	cat >"$1" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: podsrc
  cluster:
    server: $2
    certificate-authority: $PKI/ca.crt
users:
- name: $3
  user:
    client-certificate: $PKI/$3.crt
    client-key: $PKI/$3.key
contexts:
- name: podsrc
  context:
    cluster: podsrc
    user: $3
current-context: podsrc
EOF
}
