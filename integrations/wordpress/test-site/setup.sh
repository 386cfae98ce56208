#!/usr/bin/env bash
# Sets up (or resets) a WordPress test site on one port, without network access once Debian's
# packages are installed. Each port has its own database (svc_wp_<port>), its own config
# (/etc/wordpress/config-svc-<port>.php) and its own wp-content folder, so several sites (engineers,
# CI) can share a machine. Then start it with serve.sh. See README.md next to this file.
#
#   SVC_WP_PORT=8100 bash integrations/wordpress/test-site/setup.sh [--disallow-unfiltered-html]
#
# Environment: SVC_WP_PORT (8100), SVC_WP_PLUGIN_DIR (this worktree's integrations/wordpress/svc),
# SVC_WP_SITE_DIR (/tmp/svc-wp-<port>), SVC_WP_DB_HOST (127.0.0.1:3306), SVC_WP_DB_USER (root),
# SVC_WP_DB_PASSWORD (empty).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
port=${SVC_WP_PORT:-8100}
plugin_dir=${SVC_WP_PLUGIN_DIR:-$repo/integrations/wordpress/svc}
site_dir=${SVC_WP_SITE_DIR:-/tmp/svc-wp-$port}
disallow_unfiltered_html=0
for arg in "$@"; do
  case $arg in
    --disallow-unfiltered-html) disallow_unfiltered_html=1 ;;
    *) echo "unknown option $arg" >&2; exit 2 ;;
  esac
done
[[ $port =~ ^[0-9]+$ ]] || { echo "SVC_WP_PORT must be a port number" >&2; exit 2; }

packages=(wordpress wordpress-theme-twentytwentythree wordpress-theme-twentytwentyone php-cli php-mysql)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  [[ $(id -u) == 0 ]] || { echo "missing Debian packages (${missing[*]}); installing them needs root" >&2; exit 1; }
  echo "installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
[[ -w /etc/wordpress ]] || { echo "/etc/wordpress is not writable: run as root" >&2; exit 1; }
[[ -f $plugin_dir/svc.php ]] || { echo "no plugin at $plugin_dir (svc.php missing)" >&2; exit 1; }

# The content folder: Debian's two themes and the plugin under test, by symlink, so an edit in
# the worktree is live on the next request.
content=$site_dir/wp-content
# The folder is deleted and made afresh, as root: only one this script made (its marker, or the
# plugin symlink of sites set up before the marker), or an empty one, never a mistyped
# SVC_WP_SITE_DIR such as / or $HOME.
[[ $site_dir == /* && $site_dir != / ]] || { echo "SVC_WP_SITE_DIR must be an absolute path below /" >&2; exit 2; }
if [[ -e $site_dir && ! -e $site_dir/.svc-wp-test-site && ! -L $content/plugins/svc ]] \
  && [[ -n $(ls -A "$site_dir" 2>/dev/null) || ! -d $site_dir ]]; then
  echo "$site_dir exists and is not a test site made by setup.sh: not deleting it" >&2
  exit 2
fi
rm -rf "$site_dir"
mkdir -p "$content/themes" "$content/plugins" "$content/mu-plugins" "$content/uploads"
touch "$site_dir/.svc-wp-test-site"
for theme in twentytwentythree twentytwentyone; do
  ln -s "/usr/share/wordpress/wp-content/themes/$theme" "$content/themes/$theme"
done
ln -s "$plugin_dir" "$content/plugins/svc"
cp "$here/mu-plugin.php" "$content/mu-plugins/svc-test-site.php"
((disallow_unfiltered_html)) && touch "$site_dir/disallow-unfiltered-html"

salt() { head -c 48 /dev/urandom | base64 | tr -d '\n/+='; }
# var_export quoting for PHP strings, so odd passwords cannot break the config.
php_str() { php -r 'echo var_export($argv[1], true);' -- "$1"; }
url="http://127.0.0.1:$port"
{
  cat <<PHP
<?php
// Written by integrations/wordpress/test-site/setup.sh for the test site on port $port; rewritten by
// every setup. Debian's /usr/share/wordpress/wp-config.php loads it (router.php names it).
define('DB_NAME', 'svc_wp_$port');
define('DB_USER', $(php_str "${SVC_WP_DB_USER:-root}"));
define('DB_PASSWORD', $(php_str "${SVC_WP_DB_PASSWORD:-}"));
define('DB_HOST', $(php_str "${SVC_WP_DB_HOST:-127.0.0.1:3306}"));
define('WP_HOME', '$url');
define('WP_SITEURL', '$url');
define('WP_CONTENT_DIR', '$content');
define('WP_CONTENT_URL', '$url/wp-content');
// Nothing leaves the machine: server-side requests only to this machine (the plugin's key check
// goes to the platform on localhost), no updates, no cron (its loopback request would block a
// php -S worker).
define('WP_HTTP_BLOCK_EXTERNAL', true);
define('WP_ACCESSIBLE_HOSTS', 'localhost,127.0.0.1');
define('AUTOMATIC_UPDATER_DISABLED', true);
define('WP_AUTO_UPDATE_CORE', false);
define('DISABLE_WP_CRON', true);
// Notices go to a log the tests read, never into pages or REST answers.
define('WP_DEBUG', true);
define('WP_DEBUG_DISPLAY', false);
define('WP_DEBUG_LOG', '$site_dir/debug.log');
// The managed-host variant: setup.sh --disallow-unfiltered-html, or the flag file made or
// removed while the site runs (the tests do), as every request reads it.
if (file_exists('$site_dir/disallow-unfiltered-html')) {
    define('DISALLOW_UNFILTERED_HTML', true);
}
PHP
  for key in AUTH_KEY SECURE_AUTH_KEY LOGGED_IN_KEY NONCE_KEY AUTH_SALT SECURE_AUTH_SALT LOGGED_IN_SALT NONCE_SALT; do
    echo "define('$key', '$(salt)');"
  done
} >"/etc/wordpress/config-svc-$port.php"

php "$here/install.php" "$port" svc/svc.php
