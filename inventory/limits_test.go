package inventory

import (
	"errors"
	"strings"
	"testing"
)

func TestLargestContainerCountsItemsWithoutParsing(t *testing.T) {
	for _, tc := range []struct {
		json          string
		minDepth      int
		items, offset int
	}{
		{`{"a":[1,2,3],"b":{"x":[],"y":"[,,,]"}}`, 1, 3, 5},
		{`{"a":[1,2,3],"b":{"x":[],"y":"[,,,]"}}`, 3, 0, 0},
		{`[[1,2],[3,4,5,6],{}]`, 2, 4, 7},
		{`{"k":"a\",b","l":[ ]}`, 1, 2, 0},
		{`[]`, 1, 0, 0},
	} {
		items, at := largestContainer([]byte(tc.json), tc.minDepth)
		if items != tc.items || at != tc.offset {
			t.Errorf("largestContainer(%s, %d) = %d at %d, want %d at %d", tc.json, tc.minDepth, items, at, tc.items, tc.offset)
		}
	}
	for json, want := range map[string]int{`{}`: 0, ` {"a":1,"b":[1,2],"c":{"d":1,"e":2}}`: 3, `"x"`: 0, `{"a,b":1}`: 1} {
		if got := topLevelKeys([]byte(json)); got != want {
			t.Errorf("topLevelKeys(%s) = %d, want %d", json, got, want)
		}
	}
}

// Each format counts its nodes against Limits.MaxNodes before making them:
// at the limit it loads, one over it is refused with ErrLimit.
func TestEveryFormatRefusesOneNodeOverMaxNodes(t *testing.T) {
	for _, tc := range []struct {
		format   string
		atLimit  string
		overOne  string
		location string
	}{
		{"slurm-conf", "NodeName=n[1-3]\nNodeName=m1\n", "NodeName=n[1-3]\nNodeName=m[1-2]\n", "f:2: field \"NodeName\""},
		{"sift-json", "{\"name\":\"a\"}\n{\"name\":\"b\"}\n{\"name\":\"c\"}\n{\"name\":\"d\"}\n",
			"{\"name\":\"a\"}\n{\"name\":\"b\"}\n{\"name\":\"c\"}\n{\"name\":\"d\"}\n{\"name\":\"e\"}\n", "f:5:1"},
		{"slurm-json", `{"meta":{},"nodes":[{"name":"a"},{"name":"b"},{"name":"c"},{"name":"d"}]}`,
			`{"meta":{},"nodes":[{"name":"a"},{"name":"b"},{"name":"c"},{"name":"d"},{"name":"e"}]}`, `f: "nodes"`},
		{"slurm-json", `{"sinfo":[{"nodes":{"nodes":["a[1-4]"]}},{"nodes":{"nodes":["a[1-4]"]}}]}`,
			`{"sinfo":[{"nodes":{"nodes":["a[1-4]"]}},{"nodes":{"nodes":["a[1-5]"]}}]}`, "f: sinfo[1]"},
		{"flux-r", `{"version":1,"execution":{"R_lite":[{"rank":"0-3","children":{"core":"0"}}],"nodelist":["n[0-3]"]}}`,
			`{"version":1,"execution":{"R_lite":[{"rank":"0-3","children":{"core":"0"}},{"rank":"3-4","children":{"core":"1"}}],"nodelist":["n[0-4]"]}}`, "f: R_lite rank 3-4"},
	} {
		t.Run(tc.format, func(t *testing.T) {
			lim := Limits{MaxNodes: 4}
			c, _, err := ParseClusterWithin("f", []byte(tc.atLimit), tc.format, lim)
			if err != nil || len(c.Nodes) != 4 {
				t.Fatalf("at the limit: %v", err)
			}
			_, _, err = ParseClusterWithin("f", []byte(tc.overOne), tc.format, lim)
			if !errors.Is(err, ErrLimit) || !strings.HasPrefix(err.Error(), tc.location) || !strings.Contains(err.Error(), "would make 5 nodes") {
				t.Fatalf("one over: %v; want ErrLimit at %q making 5 nodes", err, tc.location)
			}
		})
	}
}

func TestFeaturesPerNodeAreBounded(t *testing.T) {
	lim := Limits{MaxFeatures: 2}
	for _, tc := range []struct{ format, ok, over string }{
		{"slurm-conf", "NodeName=n1 Features=a,b\n", "NodeName=n1 Features=a,b,c\n"},
		{"sift-json", `{"name":"a","features":["a","b"]}`, `{"name":"a","features":["a","b","c"]}`},
		{"sift-json", `{"name":"a","extra":{"a":1,"b":2}}`, `{"name":"a","extra":"{\"a\":1,\"b\":2,\"c\":3}"}`},
		{"slurm-json", `{"meta":{},"nodes":[{"name":"a","features":"a,b"}]}`, `{"meta":{},"nodes":[{"name":"a","features":"a,b,c"}]}`},
		{"slurm-json", `{"meta":{},"nodes":[{"name":"a","features":["a","b"]}]}`, `{"meta":{},"nodes":[{"name":"a","features":["a","b","c"]}]}`},
		{"flux-r", `{"version":1,"execution":{"R_lite":[{"rank":"0","children":{"core":"0"}}],"nodelist":["n0"],"properties":{"a":"0","b":"0"}}}`,
			`{"version":1,"execution":{"R_lite":[{"rank":"0","children":{"core":"0"}}],"nodelist":["n0"],"properties":{"a":"0","b":"0","c":"0"}}}`},
	} {
		if _, _, err := ParseClusterWithin("f", []byte(tc.ok), tc.format, lim); err != nil {
			t.Errorf("%s at the limit: %v", tc.ok, err)
		}
		if _, _, err := ParseClusterWithin("f", []byte(tc.over), tc.format, lim); !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "3 ") {
			t.Errorf("%s: %v; want ErrLimit counting 3", tc.over, err)
		}
	}
}
