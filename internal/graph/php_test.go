package graph

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/discover"
)

func TestPHPImports(t *testing.T) {
	t.Parallel()
	src := `<?php
namespace App\Http;

use App\Models\User;
use \Psr\Log\LoggerInterface as Logger, App\Support\Str;
use function App\Support\helper;
use const App\Support\VERSION;
use App\Services\{Billing, Mail\Mailer as M};
use App\Events\{
    Created,
    Deleted,
};
// use Not\Comment;
# use Not\Hash;
require_once __DIR__ . '/bootstrap.php';
require dirname(__FILE__) . "/config.php";
include_once dirname(__DIR__) . '/up.php';
require 'vendor/autoload.php';
include("legacy.php");
require $dynamic . '/x.php';

class Controller
{
    use HasTraits;

    public function f()
    {
        $g = function () use ($x) {};
    }
}
`
	want := []Import{{`App\Models\User`, 4}, {`Psr\Log\LoggerInterface`, 5}, {`App\Support\Str`, 5},
		{`function App\Support\helper`, 6}, {`const App\Support\VERSION`, 7},
		{`App\Services\Billing`, 8}, {`App\Services\Mail\Mailer`, 8}, {`App\Events\Created`, 9}, {`App\Events\Deleted`, 9},
		{"__DIR__/bootstrap.php", 15}, {"__DIR__/config.php", 16}, {"__DIR__/../up.php", 17},
		{"vendor/autoload.php", 18}, {"legacy.php", 19}}
	if d := cmp.Diff(want, Imports(discover.LangPHP, []byte(src))); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	braced := "<?php\nnamespace A {\n    use B\\C;\n    class D { use T; }\n}\n"
	if d := cmp.Diff([]Import{{`B\C`, 3}}, Imports(discover.LangPHP, []byte(braced))); d != "" {
		t.Errorf("braced namespace (-want +got):\n%s", d)
	}
}

func TestResolvePHP(t *testing.T) {
	t.Parallel()
	files := []string{"app/Models/User.php", "app/Http/Controller.php", "app/Support/Str.php", "app/Support/helpers.php",
		"src/Billing.php", "bootstrap.php", "app/config.php", "lib/legacy.php", "tests/Models/User.php"}
	r := NewResolver(files, nil)
	checkResolve(t, r, discover.LangPHP, []resolveCase{
		{"psr-4", "app/Http/Controller.php", `App\Models\User`, Resolution{"app/Models/User.php", true}},
		{"nearest of two", "tests/Models/UserTest.php", `Tests\Models\User`, Resolution{"tests/Models/User.php", true}},
		{"prefix mapped to src", "app/Http/Controller.php", `Acme\Billing`, Resolution{"src/Billing.php", true}},
		{"one segment elsewhere is not enough", "app/Http/Controller.php", `Acme\Str`, Resolution{}},
		{"function", "app/Http/Controller.php", `function App\Support\helper`, Resolution{"app/Support", true}},
		{"dir require", "app/Http/Controller.php", "__DIR__/../../bootstrap.php", Resolution{"bootstrap.php", true}},
		{"dir require, missing", "app/Http/Controller.php", "__DIR__/gone.php", Resolution{"", true}},
		{"plain require beside", "app/Http/Controller.php", "../config.php", Resolution{"app/config.php", true}},
		{"plain require, include path", "app/Http/Controller.php", "legacy.php", Resolution{"lib/legacy.php", true}},
		{"composer autoload", "app/Http/Controller.php", "vendor/autoload.php", Resolution{}},
		{"library class", "app/Http/Controller.php", `Psr\Log\LoggerInterface`, Resolution{}},
	})
}
