package staticpod

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// maxExponent bounds the decimal exponent of a quantity that decoding
// takes in bounded time: apimachinery's Quantity expands the exponent into
// a big integer when the kubelet's validation compares it, which takes
// about a second at 1e3000000 and never finishes at 1e200000000 (130 bytes
// of manifest), in the kubelet as in podsrc.
const maxExponent = 1000000

// hugeExponent finds, fast, what may be a quantity beyond maxExponent: an
// exponent of seven digits or more.
var hugeExponent = regexp.MustCompile(`[eE][+-]?0*[1-9][0-9]{6}`)

// quantityShape is a decimal quantity with an exponent, the exponent's
// digits its group.
var quantityShape = regexp.MustCompile(`^\s*[+-]?[0-9]*\.?[0-9]*[eE][+-]?([0-9]+)`)

// quantityMaps are the keys whose map values are quantities (resource
// lists of specs and statuses); quantityKeys the keys whose value is one.
var (
	quantityMaps = map[string]bool{"requests": true, "limits": true, "overhead": true, "allocatedResources": true, "capacity": true, "allocatable": true}
	quantityKeys = map[string]bool{"sizeLimit": true}
)

// checkQuantities returns an error naming a quantity of the manifest or
// URL body data whose exponent is beyond maxExponent; nil when there is none, or when data does not
// parse (the decoder says why).
func checkQuantities(data []byte) error {
	if !hugeExponent.Match(data) {
		return nil
	}
	asJSON, err := utilyaml.ToJSON(data)
	if err != nil {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(asJSON))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil
	}
	return walkQuantities(doc, "", false)
}

// walkQuantities checks the quantities below v, at path; quantity says
// that v is one.
func walkQuantities(v any, path string, quantity bool) error {
	switch v := v.(type) {
	case map[string]any:
		// In the keys' order, so that the same manifest gives the same
		// error.
		for _, k := range slices.Sorted(maps.Keys(v)) {
			e := v[k]
			p := path + "." + fieldName(k)
			if quantityMaps[k] {
				if m, ok := e.(map[string]any); ok {
					// The resource's name is the manifest's: left out.
					for _, q := range m {
						if err := walkQuantities(q, p, true); err != nil {
							return err
						}
					}
					continue
				}
			}
			if err := walkQuantities(e, p, quantityKeys[k]); err != nil {
				return err
			}
		}
	case []any:
		for i, e := range v {
			if err := walkQuantities(e, fmt.Sprintf("%s[%d]", path, i), false); err != nil {
				return err
			}
		}
	case string:
		if quantity {
			return checkQuantity(v, path)
		}
	case json.Number:
		if quantity {
			return checkQuantity(string(v), path)
		}
	}
	return nil
}

// fieldShape is the shape of an API field's name.
var fieldShape = regexp.MustCompile(`^[a-z][A-Za-z0-9]{0,62}$`)

// fieldName is k in an error's path when it is shaped as an API field's
// name; a key of another shape is the manifest's content, and is left out.
func fieldName(k string) string {
	if fieldShape.MatchString(k) {
		return k
	}
	return "*"
}

// checkQuantity returns an error when the quantity s at path has an
// exponent beyond maxExponent.
func checkQuantity(s, path string) error {
	m := quantityShape.FindStringSubmatch(s)
	if m == nil || m[1] == "" {
		return nil
	}
	digits := strings.TrimLeft(m[1], "0")
	if digits == "" {
		return nil
	}
	if exp, err := strconv.Atoi(digits); err == nil && exp <= maxExponent {
		return nil
	}
	return fmt.Errorf("quantity at %s has a decimal exponent beyond %d: decoding it does not finish in bounded time, in the kubelet either", path[1:], maxExponent)
}
