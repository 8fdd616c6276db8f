package graph

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/discover"
)

func TestCSharpUsings(t *testing.T) {
	t.Parallel()
	src := `// using Not.Comment;
using System;
using System.Collections.Generic;
using static System.Math;
using Json = Newtonsoft.Json.JsonConvert;
using IntList = System.Collections.Generic.List<int>;
global using Acme.Core;
using X = global::Acme.Util;
namespace Acme.App
{
    using Acme.Models;
    using @class.Name;

    class C
    {
        void M()
        {
            using var s = Open();
            using (var t = Open()) { }
            using Stream u = Open();
            var q = @"
using Not.Verbatim;
";
        }
    }
}
`
	want := []Import{{"System", 2}, {"System.Collections.Generic", 3}, {"System.Math", 4}, {"Newtonsoft.Json.JsonConvert", 5},
		{"System.Collections.Generic.List", 6}, {"Acme.Core", 7}, {"Acme.Util", 8}, {"Acme.Models", 11}, {"class.Name", 12}}
	if d := cmp.Diff(want, Imports(discover.LangCSharp, []byte(src))); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func TestResolveCSharp(t *testing.T) {
	t.Parallel()
	files := []string{
		"Acme.sln",
		"src/Acme.Core/Acme.Core.csproj", "src/Acme.Core/Widget.cs", "src/Acme.Core/Models/User.cs",
		"src/Acme.Core/Services/Billing/Invoice.cs",
		"src/Web/Web.csproj", "src/Web/Controllers/Home.cs",
		"Plain/Utils/Strings.cs",
		"shop/Shop.csproj", "shop/Inventory/Stock.cs", "shop/Inventory/Reports/Report.cs", "shop/Pricing/PriceList.cs",
		"tests/Acme.Core.Tests/Acme.Core.Tests.csproj", "tests/Acme.Core.Tests/Models/UserTests.cs",
	}
	r := NewResolver(files, nil)
	checkResolve(t, r, discover.LangCSharp, []resolveCase{
		{"project directory", "src/Web/Controllers/Home.cs", "Acme.Core", Resolution{"src/Acme.Core", true}},
		{"project subdirectory", "src/Web/Controllers/Home.cs", "Acme.Core.Models", Resolution{"src/Acme.Core/Models", true}},
		{"deeper", "src/Web/Controllers/Home.cs", "Acme.Core.Services.Billing", Resolution{"src/Acme.Core/Services/Billing", true}},
		{"nearest of two Models", "tests/Acme.Core.Tests/Models/UserTests.cs", "Acme.Core.Tests.Models", Resolution{"tests/Acme.Core.Tests/Models", true}},
		{"root namespace not in the path", "src/Acme.Core/Widget.cs", "Acme.Web.Controllers", Resolution{"src/Web/Controllers", true}},
		{"plain directories", "src/Web/Controllers/Home.cs", "Plain.Utils", Resolution{"Plain/Utils", true}},
		{"static type file", "src/Web/Controllers/Home.cs", "Acme.Core.Models.User", Resolution{"src/Acme.Core/Models/User.cs", true}},
		{"type without its own file", "src/Web/Controllers/Home.cs", "Acme.Core.Models.Role", Resolution{"src/Acme.Core/Models", true}},
		{"one directory below its project", "shop/Pricing/PriceList.cs", "Shop.Inventory", Resolution{"shop/Inventory", true}},
		{"below its project", "shop/Pricing/PriceList.cs", "Shop.Inventory.Reports", Resolution{"shop/Inventory/Reports", true}},
		{"type below its project", "shop/Inventory/Stock.cs", "Shop.Pricing.PriceList", Resolution{"shop/Pricing/PriceList.cs", true}},
		{"internal by project name", "src/Web/Controllers/Home.cs", "Acme.Core.Missing.Deep", Resolution{"", true}},
		{"one segment is not enough", "src/Web/Controllers/Home.cs", "Other.Models", Resolution{}},
		{"framework", "src/Web/Controllers/Home.cs", "System.Collections.Generic", Resolution{}},
		{"package sharing only a first segment", "src/Web/Controllers/Home.cs", "Acme.Logging", Resolution{}},
	})
}
