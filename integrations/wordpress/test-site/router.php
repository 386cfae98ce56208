<?php
// The router of `php -S` for a test site (started by serve.sh):
//   php -S 127.0.0.1:PORT -t /usr/share/wordpress router.php
// `php -S` does not pass environment variables into $_SERVER, and Debian's wp-config.php picks its
// per-site config from $_SERVER['WORDPRESS_CONFIG'] (else from the Host header, which would be
// 127.0.0.1 for every port); this router carries it over, serves the site's own wp-content folder
// (themes and the plugin under test live there, not in /usr/share/wordpress) and sends every
// other path WordPress does not have as a file to index.php, as Apache's rewrite rules would for
// pretty permalinks.

$_SERVER['WORDPRESS_CONFIG'] = getenv('WORDPRESS_CONFIG');
$svc_root = rtrim($_SERVER['DOCUMENT_ROOT'], '/');
$svc_path = rawurldecode(parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH) ?? '/');

if (str_contains($svc_path, '..')) {
    http_response_code(400);
    return true;
}

if (str_starts_with($svc_path, '/wp-content/')) {
    // The site's content folder (themes/ and plugins/svc are symlinks into the packages and the
    // worktree). Only static files: PHP under wp-content is run by WordPress, never by URL.
    $file = getenv('SVC_WP_CONTENT_DIR') . substr($svc_path, strlen('/wp-content'));
    $types = [
        'css' => 'text/css; charset=utf-8', 'js' => 'text/javascript; charset=utf-8',
        'json' => 'application/json', 'svg' => 'image/svg+xml', 'png' => 'image/png',
        'jpg' => 'image/jpeg', 'jpeg' => 'image/jpeg', 'gif' => 'image/gif', 'webp' => 'image/webp',
        'ico' => 'image/x-icon', 'woff' => 'font/woff', 'woff2' => 'font/woff2', 'ttf' => 'font/ttf',
        'txt' => 'text/plain; charset=utf-8', 'map' => 'application/json',
    ];
    $ext = strtolower(pathinfo($file, PATHINFO_EXTENSION));
    if (!is_file($file) || !isset($types[$ext])) {
        http_response_code(404);
        return true;
    }
    header('Content-Type: ' . $types[$ext]);
    header('Content-Length: ' . filesize($file));
    readfile($file);
    return true;
}

$svc_file = $svc_root . $svc_path;
if (is_dir($svc_file)) {
    if (!str_ends_with($svc_path, '/')) {
        header('Location: ' . $svc_path . '/', true, 301);
        return true;
    }
    $svc_file .= 'index.php';
    $svc_path .= 'index.php';
}
if (is_file($svc_file) && !str_ends_with($svc_file, '.php')) {
    return false; // a static file of WordPress itself: the built-in server sends it
}
if (!is_file($svc_file)) {
    $svc_file = $svc_root . '/index.php'; // pretty permalinks
    $svc_path = '/index.php';
}
// Run the script here rather than returning false, so it sees the $_SERVER set above, with the
// script variables WordPress derives $pagenow and its admin URLs from.
$_SERVER['SCRIPT_FILENAME'] = $svc_file;
$_SERVER['SCRIPT_NAME'] = $svc_path;
$_SERVER['PHP_SELF'] = $svc_path;
chdir(dirname($svc_file));
require $svc_file;
