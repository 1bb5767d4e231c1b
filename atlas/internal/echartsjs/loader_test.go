package echartsjs

import (
	"strings"
	"testing"

	"github.com/atlas-lakehouse/atlas/atlas/internal/displaytest"
)

func TestLoaderShadowsAMDAndCommonJS(t *testing.T) {
	s := Loader([]byte(displaytest.FakeBundle))
	if !strings.Contains(s, "(function(define,module,exports){") {
		t.Fatalf("loader does not shadow define/module/exports:\n%s", s)
	}
	if !strings.Contains(s, "if(window.atlasEcharts){return;}") {
		t.Fatalf("loader does not guard against loading twice")
	}
	withClose := Loader([]byte(`var s="</script><!--";`))
	if strings.Count(withClose, "</script") != 1 || strings.Contains(withClose, "<!--") {
		t.Fatalf("loader must escape </script and <!-- inside the bundle:\n%s", withClose)
	}
}
