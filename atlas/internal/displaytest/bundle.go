package displaytest

import (
	"os"
	"path/filepath"
	"testing"
)

// FakeBundle is a stand-in for echarts.min.js with the same UMD header as
// the real bundle: CommonJS first, then AMD, then a browser global. Its
// init records what the page asks of it so a test can run frames in node.
const FakeBundle = `/* fake echarts for tests */
!function(t,e){"object"==typeof exports&&"undefined"!=typeof module?e(exports):"function"==typeof define&&define.amd?define(["exports"],e):e((t="undefined"!=typeof globalThis?globalThis:t||self).echarts={})}(this,function(t){"use strict";
var byDom=new Map();t.version="fake";t.inits=[];t.disposed=0;
t.getInstanceByDom=function(el){return byDom.get(el);};
t.init=function(el,theme,opts){var c={dom:el,gone:false,options:[],
 setOption:function(o){this.options.push(o);},isDisposed:function(){return this.gone;},
 dispose:function(){this.gone=true;byDom.delete(el);t.disposed++;},getDom:function(){return el;},resize:function(){}};
 byDom.set(el,c);t.inits.push(c);return c;};
});
`

// FakeBundlePath writes FakeBundle to a file in t's temporary directory and
// returns its path.
func FakeBundlePath(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "echarts.min.js")
	if err := os.WriteFile(path, []byte(FakeBundle), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
