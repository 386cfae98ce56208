<?php
/**
 * The one renderer behind the blocks and the shortcodes: validates each attribute against the
 * widget table (unknown values dropped, numbers clamped), escapes with WordPress's functions, and
 * asks for the loader once the page has a widget.
 *
 * @package svc
 */

defined( 'ABSPATH' ) || exit;

/** The widget table (includes/widget-specs.php), read once. */
function svc_widget_specs() {
	static $specs = null;
	if ( null === $specs ) {
		$specs = require __DIR__ . '/widget-specs.php';
	}
	return $specs;
}

/**
 * One attribute value as the widget takes it, or null when it is not acceptable (then the widget
 * uses its own default). Booleans come back as true or null.
 *
 * @param array $spec  The attribute's row in the table.
 * @param mixed $value From a block (typed) or a shortcode (a string).
 */
function svc_validate_attribute( array $spec, $value ) {
	if ( null === $value || is_array( $value ) || is_object( $value ) ) {
		return null;
	}
	switch ( $spec['type'] ) {
		case 'integer':
			if ( is_string( $value ) ) {
				$value = trim( $value );
				if ( ! preg_match( '/^-?\d+$/', $value ) ) {
					return null;
				}
			} elseif ( ! is_int( $value ) && ! is_float( $value ) ) {
				return null;
			}
			return max( $spec['min'], min( $spec['max'], (int) $value ) );
		case 'boolean':
			if ( is_string( $value ) ) {
				$value = in_array( strtolower( trim( $value ) ), array( '', '1', 'true', 'yes', 'on' ), true );
			}
			return true === $value ? true : null;
		case 'enum':
			return is_string( $value ) && in_array( $value, $spec['values'], true ) ? $value : null;
		default:
			$value = trim( (string) $value );
			if ( '' === $value || mb_strlen( $value ) > $spec['max'] || ! preg_match( $spec['pattern'], $value ) ) {
				return null;
			}
			return $value;
	}
}

/**
 * The widget's HTML attributes (name => value; true for a bare boolean attribute) from the given
 * block or shortcode attributes, keyed by the table's names.
 *
 * @param string $name  A widget name from the table (events, rsvp, ...).
 * @param array  $given Attribute values by table key.
 */
function svc_widget_attributes( $name, array $given ) {
	$widget = svc_widget_specs()[ $name ];
	$html   = array();
	foreach ( $widget['attributes'] as $key => $spec ) {
		$value = svc_validate_attribute( $spec, array_key_exists( $key, $given ) ? $given[ $key ] : null );
		if ( null === $value && isset( $spec['default'] ) && 'boolean' !== $spec['type'] ) {
			$value = $spec['default'];
		}
		if ( null === $value || ( isset( $spec['omit'] ) && $spec['omit'] === $value ) ) {
			continue;
		}
		$html[ $spec['html'] ] = $value;
	}
	foreach ( $widget['fixed'] ?? array() as $attr => $value ) {
		$html[ $attr ] = $value;
	}
	$theme = svc_settings()['theme'];
	if ( 'auto' !== $theme ) {
		$html['theme'] = $theme;
	}
	return $html;
}

/**
 * The no-JS fallback link's URL: the first path of the table whose placeholders are all set, on
 * the community's site.
 *
 * @param array $paths Paths with {attribute} placeholders.
 * @param array $html  The widget's validated attributes.
 */
function svc_fallback_url( array $paths, array $html ) {
	$site = svc_settings()['site_url'];
	foreach ( $paths as $path ) {
		$missing = false;
		$url     = preg_replace_callback(
			'/\{(\w+)\}/',
			function ( $m ) use ( $html, &$missing ) {
				if ( ! isset( $html[ $m[1] ] ) || ! is_string( $html[ $m[1] ] ) ) {
					$missing = true;
					return '';
				}
				return rawurlencode( $html[ $m[1] ] );
			},
			$path
		);
		if ( ! $missing ) {
			return $site . $url;
		}
	}
	return $site . '/';
}

/**
 * The element with its attributes and its fallback link. Asks for the loader (once per page).
 *
 * @param string $name  A widget name from the table.
 * @param array  $given Attribute values by table key.
 */
function svc_render_widget( $name, array $given ) {
	$specs = svc_widget_specs();
	if ( ! isset( $specs[ $name ] ) ) {
		return '';
	}
	$settings = svc_settings();
	// Not connected yet: nothing a visitor could use (the admin notice says what to do).
	if ( '' === $settings['publishable_key'] ) {
		return '';
	}
	$widget = $specs[ $name ];
	$html   = svc_widget_attributes( $name, $given );
	$attrs  = '';
	foreach ( $html as $attr => $value ) {
		$attrs .= true === $value ? ' ' . $attr : sprintf( ' %s="%s"', $attr, esc_attr( (string) $value ) );
	}
	$link = '' === $settings['site_url'] ? '' : sprintf(
		'<a href="%s">%s</a>',
		esc_url( svc_fallback_url( $widget['fallback'][0], $html ) ),
		esc_html( $widget['fallback'][1] )
	);
	svc_enqueue_loader();
	return sprintf( '<%1$s%2$s>%3$s</%1$s>', $widget['tag'], $attrs, $link );
}

/** Enqueue the loader (a second call on the same page changes nothing). */
function svc_enqueue_loader() {
	$settings = svc_settings();
	if ( '' === $settings['platform_url'] || '' === $settings['community'] ) {
		return;
	}
	if ( ! wp_script_is( 'svc-loader', 'registered' ) ) {
		// No version: the platform serves loader.js with a 5-minute cache of its own.
		wp_register_script( 'svc-loader', $settings['platform_url'] . '/widgets/loader.js', array(), null, true );
	}
	wp_enqueue_script( 'svc-loader' );
}

/**
 * WordPress 6.1 has no `strategy` argument for scripts: the loader's tag is written here, async
 * and with the data attributes it reads.
 *
 * @param string $tag    The tag WordPress made.
 * @param string $handle The script's handle.
 * @param string $src    Its URL.
 */
function svc_loader_tag( $tag, $handle, $src ) {
	if ( 'svc-loader' !== $handle ) {
		return $tag;
	}
	$settings = svc_settings();
	$data     = array(
		'data-community' => $settings['community'],
		'data-key'       => $settings['publishable_key'],
		'data-api'       => $settings['platform_url'],
	);
	$attrs    = '';
	foreach ( $data as $name => $value ) {
		if ( '' !== $value ) {
			$attrs .= sprintf( ' %s="%s"', $name, esc_attr( $value ) );
		}
	}
	return sprintf( '<script async src="%s" id="svc-loader-js"%s></script>' . "\n", esc_url( $src ), $attrs );
}
add_filter( 'script_loader_tag', 'svc_loader_tag', 10, 3 );
