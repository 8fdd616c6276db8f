#!/bin/bash
# Gathers training code for the languages the base recipe of
# internal/mine/README.md finds little of (C#, Swift, Bash) into
# /tmp/x-cs, /tmp/x-swift and /tmp/x-sh: one directory per source, holding
# only that language's files and the source's licence files, so mining
# them adds pairs of that language alone (the other languages' data stays
# as the base recipe makes it). Pass each directory to ctx-mine as
# --dir LANG/NAME=DIR (the README's recipe prints the flags).
#
# Sources: Debian's source tarballs of mono (its class library and the
# MIT corefx, corert, Rx, ASP.NET web stack and Cecil trees it carries),
# keepass2, nunit and dbus-sharp; the shell scripts of Debian's git,
# devscripts, fzf, autojump, bash-completion and password-store sources;
# the Swift of expo and React Native modules on npm. Repositories of the
# benchmarks (../shared/bench/EXCLUDE.txt) are left out: mono's copy of
# Newtonsoft.Json is deleted before anything is copied, and the script
# stops if a file of an excluded project is left.
#
# Needs a deb-src entry (see the README), npm, tar, xz and cpio; about
# 2 GB of /tmp and 5 minutes.
set -euo pipefail

src=/tmp/thin-src
rm -rf "$src" /tmp/x-cs /tmp/x-sh /tmp/x-swift
mkdir -p "$src/cs" "$src/sh" "$src/npm"

# copy SRC DST EXT...: the files of SRC with these extensions, paths kept,
# and SRC's top-level licence files.
copy() {
	local from=$1 to=$2
	shift 2
	local expr=() e
	for e in "$@"; do
		[ ${#expr[@]} -gt 0 ] && expr+=(-o)
		expr+=(-name "*.$e")
	done
	mkdir -p "$to"
	(cd "$from" && find . -type f \( "${expr[@]}" \) -not -path '*/.git/*' -print0 | cpio -0 -pdm --quiet "$to")
	local l
	for l in "$from"/LICENSE* "$from"/License* "$from"/license* "$from"/COPYING*; do
		if [ -f "$l" ]; then cp "$l" "$to/"; fi
	done
}

# The .orig tarballs: the mirror serves them even where a package's Debian
# part is missing.
cd "$src/cs"
for p in mono keepass2 nunit dbus-sharp; do
	apt-get source --download-only "$p" >/dev/null 2>&1 || true
done
tar xf mono_*.orig.tar.xz
mkdir keepass2 && tar xf keepass2_*.orig.tar.xz -C keepass2
tar xf nunit_*.orig.tar.bz2
tar xf dbus-sharp_*.orig.tar.gz
mono=$(echo "$src"/cs/mono-*/)
rm -rf "$mono"/external/{Newtonsoft.Json,api-snapshot,binary-reference-assemblies,helix-binaries,xunit-binaries}
copy "$mono/mcs/class" /tmp/x-cs/mono-class cs
copy "$mono/mcs/tools" /tmp/x-cs/mono-tools cs
cp "$mono/LICENSE" /tmp/x-cs/mono-class/
cp "$mono/LICENSE" /tmp/x-cs/mono-tools/
for d in corefx corert aspnetwebstack rx cecil linker api-doc-tools ikvm nunit-lite; do
	copy "$mono/external/$d" "/tmp/x-cs/$d" cs
done
copy keepass2 /tmp/x-cs/keepass2 cs
cp keepass2/Docs/License.txt /tmp/x-cs/keepass2/LICENSE.txt
copy nunit-* /tmp/x-cs/nunit cs
copy dbus-sharp-* /tmp/x-cs/dbus-sharp cs

cd "$src/sh"
for p in git devscripts fzf autojump; do
	apt-get source "$p" >/dev/null 2>&1 || true
done
for p in bash-completion password-store; do
	apt-get source --download-only "$p" >/dev/null 2>&1 || true
	tar xf "$p"_*.orig.tar.*
done
for d in git devscripts fzf autojump bash-completion password-store; do
	dir=$(ls -d "$d"-[0-9]*/ | head -1)
	copy "$dir" "/tmp/x-sh/$d" sh bash
	if [ -f "$dir/debian/copyright" ]; then cp "$dir/debian/copyright" "/tmp/x-sh/$d/COPYING.debian"; fi
done

cd "$src/npm"
echo '{"name":"thin-swift","private":true}' >package.json
npm install --prefix "$src/npm" --ignore-scripts --no-audit --no-fund --legacy-peer-deps \
	expo-av expo-image expo-notifications expo-location expo-sensors expo-haptics expo-clipboard \
	expo-device expo-font expo-localization expo-media-library expo-secure-store expo-sharing \
	expo-splash-screen expo-updates expo-web-browser expo-image-picker expo-contacts expo-calendar \
	expo-battery expo-blur expo-brightness expo-crypto expo-document-picker expo-keep-awake \
	expo-linear-gradient expo-mail-composer expo-print expo-screen-orientation expo-sms expo-speech \
	expo-sqlite expo-store-review expo-task-manager expo-video expo-audio expo-network \
	expo-application expo-asset expo-background-fetch expo-cellular expo-local-authentication \
	expo-apple-authentication expo-auth-session expo-barcode-scanner expo-dev-client \
	expo-dev-launcher expo-dev-menu expo-system-ui expo-navigation-bar expo-tracking-transparency \
	expo-image-manipulator expo-gl expo-maps react-native-vision-camera @stripe/stripe-react-native \
	lottie-react-native react-native-purchases react-native-iap @react-native-community/datetimepicker \
	react-native-mmkv @shopify/flash-list react-native-nitro-modules >/dev/null
cd node_modules
for p in $(ls -d expo-* @*/* react-native-* lottie-react-native 2>/dev/null); do
	if [ -n "$(find "$p" -name '*.swift' -print -quit)" ]; then
		copy "$p" "/tmp/x-swift/$(echo "$p" | tr / +)" swift
	fi
done

# A directory named like an excluded project (Newtonsoft.Json,
# MessagePack-CSharp, Dapper, Alamofire, RxSwift, Vapor, bash-it, bats).
if find /tmp/x-cs /tmp/x-sh /tmp/x-swift -type d \( -iname 'newtonsoft*' -o -iname 'messagepack*' -o -iname 'dapper' \
	-o -iname 'alamofire' -o -iname 'rxswift' -o -iname 'vapor' -o -iname 'bash-it' -o -iname 'bats*' \) | grep -q .; then
	echo "mine-thin: a file of an excluded project was copied" >&2
	exit 1
fi
for l in cs sh swift; do
	printf '%s: %s files\n' "$l" "$(find /tmp/x-$l -type f | wc -l)"
done
