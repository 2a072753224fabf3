package printers

import (
	"fmt"
	"reflect"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/util/jsonpath"
	"k8s.io/kubectl/pkg/cmd/get"
)

// Object returns the item as every machine-readable format prints it: a
// Kubernetes-style object. It is the wire object as the agent serves it,
// with apiVersion, kind and nodeName, and a metadata that holds the item's
// Name, Namespace, UID and Labels; a top-level field that metadata now
// holds (a PodInfo's name, namespace, uid and labels, a Source's name) is
// moved there rather than printed twice. So .metadata.name names every
// item of every command, as in kubectl.
func (it Item) Object() (map[string]any, error) {
	obj, err := ToRuntimeObject(it.Wire)
	if err != nil {
		return nil, err
	}
	m := obj.(*unstructured.Unstructured).Object
	md := map[string]any{"name": it.Name}
	if it.Namespace != "" {
		md["namespace"] = it.Namespace
	}
	if it.UID != "" {
		md["uid"] = it.UID
	}
	if len(it.Labels) > 0 {
		labels := map[string]any{}
		for k, v := range it.Labels {
			labels[k] = v
		}
		md["labels"] = labels
	}
	for k, v := range md {
		if top, ok := m[k]; ok && reflect.DeepEqual(top, v) {
			delete(m, k)
		}
	}
	m["metadata"] = md
	return m, nil
}

// metaObject returns the item's Object as kubectl's printers read it, every
// string escaped by EscapeControls (the table printer, -o name and -o
// custom-columns write what they read from it as it is). It is a row's
// TableRow.Object and what -o name and -o custom-columns print.
func (it Item) metaObject() (*unstructured.Unstructured, error) {
	m, err := it.Object()
	if err != nil {
		return nil, err
	}
	return &unstructured.Unstructured{Object: escapeValues(m).(map[string]any)}, nil
}

// nameObject is the item's metaObject as -o name prints it: its name after
// its node's (node-1/web), so that the objects of two nodes differ; an
// item named after its node (a PLEG status) keeps its name.
func (it Item) nameObject() (*unstructured.Unstructured, error) {
	if it.Node != "" && it.Node != it.Name {
		it.Name = it.Node + "/" + it.Name
	}
	return it.metaObject()
}

// metaList returns the UnstructuredList of the items' metaObjects, or, for
// -o name (names), their nameObjects.
func metaList(items []Item, names bool) (*unstructured.UnstructuredList, error) {
	l := &unstructured.UnstructuredList{Object: map[string]any{"apiVersion": "v1", "kind": "List"}}
	for _, it := range items {
		u, err := it.metaObject()
		if names {
			u, err = it.nameObject()
		}
		if err != nil {
			return nil, err
		}
		l.Items = append(l.Items, *u)
	}
	return l, nil
}

// sortItems orders items by the JSONPath field (--sort-by) with kubectl
// get's sorter, over their metaObjects: the fields -o json prints, and
// .metadata.name and .metadata.namespace as in kubectl.
func sortItems(items []Item, field string) ([]Item, error) {
	if field == "" || len(items) < 2 {
		return items, nil
	}
	objs := make([]runtime.Object, len(items))
	for i, it := range items {
		o, err := it.metaObject()
		if err != nil {
			return nil, err
		}
		objs[i] = o
	}
	if err := checkSortable(objs, field); err != nil {
		return nil, fmt.Errorf("--sort-by %q: %w", field, err)
	}
	sorter, err := get.SortObjects(unstructured.UnstructuredJSONScheme, objs, field)
	if err != nil {
		return nil, fmt.Errorf("--sort-by %q: %w", field, err)
	}
	out := make([]Item, len(items))
	for i := range out {
		out[i] = items[sorter.OriginalPosition(i)]
	}
	return out, nil
}

// checkSortable returns an error unless the values field finds in objs are
// all strings or all numbers, the values kubectl's sorter compares (it
// ends the process on others).
func checkSortable(objs []runtime.Object, field string) error {
	expr, err := get.RelaxedJSONPathExpression(field)
	if err != nil {
		return err
	}
	parser := jsonpath.New("sort-by").AllowMissingKeys(true)
	if err := parser.Parse(expr); err != nil {
		return err
	}
	kind := ""
	for _, obj := range objs {
		results, err := parser.FindResults(obj.(*unstructured.Unstructured).Object)
		if err != nil {
			return err
		}
		if len(results) == 0 || len(results[0]) == 0 {
			continue
		}
		k := "other"
		switch results[0][0].Interface().(type) {
		case string:
			k = "string"
		case float64, int64:
			k = "number"
		}
		if k == "other" {
			return fmt.Errorf("it finds %T values; sort by a field that holds strings or numbers", results[0][0].Interface())
		}
		if kind != "" && k != kind {
			return fmt.Errorf("it finds both strings and numbers; sort by a field that holds one or the other")
		}
		kind = k
	}
	return nil
}
