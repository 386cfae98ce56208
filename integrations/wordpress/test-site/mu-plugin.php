<?php
/**
 * Plugin Name: svc test site
 * Description: Keeps the test site off the network (installed as a must-use plugin by setup.sh).
 */

// The config blocks server-side requests to anything but localhost (WP_HTTP_BLOCK_EXTERNAL);
// these keep the browser off the network too, and WordPress from even trying: the editor's
// remote pattern directory, and the emoji fallback that loads images from s.w.org when the
// browser has no emoji font (headless Chromium on CI has none).
add_filter('should_load_remote_block_patterns', '__return_false');
foreach (['_maybe_update_core', '_maybe_update_plugins', '_maybe_update_themes'] as $svc_check) {
    remove_action('admin_init', $svc_check);
}
foreach (['load-plugins.php', 'load-update.php', 'load-update-core.php'] as $svc_screen) {
    remove_action($svc_screen, 'wp_update_plugins');
    remove_action($svc_screen, 'wp_update_themes');
}
remove_action('wp_head', 'print_emoji_detection_script', 7);
remove_action('admin_print_scripts', 'print_emoji_detection_script');
remove_action('wp_print_styles', 'print_emoji_styles');
remove_action('admin_print_styles', 'print_emoji_styles');
