<?php
/**
 * The blocks (dynamic: block.json per block, rendered here on every view, so the saved post holds
 * only a block comment that kses leaves alone for every role), the shortcodes, the editor script
 * and its event list.
 *
 * @package svc
 */

defined( 'ABSPATH' ) || exit;

add_action(
	'init',
	function () {
		wp_register_script(
			'svc-editor',
			plugins_url( 'editor/blocks.js', SVC_PLUGIN_FILE ),
			array( 'wp-blocks', 'wp-element', 'wp-server-side-render', 'wp-block-editor', 'wp-components', 'wp-i18n', 'wp-api-fetch' ),
			SVC_VERSION,
			true
		);
		$editor = array();
		foreach ( svc_widget_specs() as $name => $widget ) {
			$editor[ $name ] = array(
				'title'      => $widget['title'],
				'attributes' => $widget['attributes'],
			);
		}
		wp_add_inline_script( 'svc-editor', 'window.svcWidgets = ' . wp_json_encode( $editor ) . ';', 'before' );

		foreach ( array_keys( svc_widget_specs() ) as $name ) {
			register_block_type(
				__DIR__ . '/../blocks/' . $name,
				array(
					'render_callback' => function ( $attributes ) use ( $name ) {
						$widget = svc_render_widget( $name, is_array( $attributes ) ? $attributes : array() );
						return '' === $widget ? '' : sprintf( '<div %s>%s</div>', get_block_wrapper_attributes(), $widget );
					},
				)
			);
			add_shortcode(
				'svc_' . str_replace( '-', '_', $name ),
				function ( $atts ) use ( $name ) {
					return svc_render_widget( $name, svc_shortcode_attributes( $name, is_array( $atts ) ? $atts : array() ) );
				}
			);
		}
	}
);

/**
 * Shortcode attributes by the table's keys. WordPress lowercases the names; the widget's
 * kebab-case names and snake_case are both taken, and a bare name (`[svc_events featured]`)
 * is a boolean set.
 *
 * @param string $name The widget.
 * @param array  $atts As WordPress parsed them.
 */
function svc_shortcode_attributes( $name, array $atts ) {
	$given = array();
	foreach ( svc_widget_specs()[ $name ]['attributes'] as $key => $spec ) {
		$snake = strtolower( preg_replace( '/[A-Z]/', '_$0', $key ) );
		foreach ( array_unique( array( $spec['html'], str_replace( '_', '-', $snake ), $snake, strtolower( $key ) ) ) as $alias ) {
			if ( array_key_exists( $alias, $atts ) ) {
				$given[ $key ] = $atts[ $alias ];
			} elseif ( 'boolean' === $spec['type'] && in_array( $alias, svc_bare_words( $atts ), true ) ) {
				$given[ $key ] = true;
			}
		}
	}
	return $given;
}

/**
 * The bare words of a shortcode (`featured` in `[svc_events featured]`): WordPress gives them
 * numeric keys. A named attribute's value (`note="featured"`) is not one.
 *
 * @param array $atts As WordPress parsed them.
 */
function svc_bare_words( array $atts ) {
	$words = array();
	foreach ( $atts as $position => $word ) {
		if ( is_int( $position ) && is_string( $word ) ) {
			$words[] = strtolower( $word );
		}
	}
	return $words;
}

add_action(
	'enqueue_block_editor_assets',
	function () {
		// The previews are the real widgets: the loader upgrades the elements ServerSideRender adds.
		svc_enqueue_loader();
	}
);

add_filter(
	'block_categories_all',
	function ( $categories ) {
		array_unshift(
			$categories,
			array(
				'slug'  => 'svc',
				'title' => 'svc',
			)
		);
		return $categories;
	}
);

add_action(
	'rest_api_init',
	function () {
		// The editor's event picker. Through the site rather than from the browser: the answer is
		// the same for every editor, and the key stays a setting.
		register_rest_route(
			'svc/v1',
			'/events',
			array(
				'methods'             => 'GET',
				'permission_callback' => function () {
					return current_user_can( 'edit_posts' );
				},
				'callback'            => 'svc_rest_events',
			)
		);
	}
);

/** The community's events (slug, name, start) for the picker, upcoming and past. */
function svc_rest_events() {
	$s = svc_settings();
	if ( '' === $s['publishable_key'] ) {
		return new WP_Error( 'svc_not_connected', __( 'svc is not connected: see Settings → svc.', 'svc' ), array( 'status' => 409 ) );
	}
	$events = array();
	foreach ( array( 'upcoming=true', 'past=true' ) as $which ) {
		$answer = wp_remote_get(
			$s['platform_url'] . '/v1/communities/' . rawurlencode( $s['community'] ) . '/events?limit=100&' . $which,
			array(
				'timeout' => 8,
				'headers' => array( 'X-API-Key' => $s['publishable_key'] ),
			)
		);
		$body   = is_wp_error( $answer ) ? null : json_decode( wp_remote_retrieve_body( $answer ), true );
		if ( 200 !== wp_remote_retrieve_response_code( $answer ) || ! is_array( $body ) ) {
			return new WP_Error( 'svc_events_unavailable', __( 'The community\'s events could not be read from the platform.', 'svc' ), array( 'status' => 502 ) );
		}
		foreach ( $body as $event ) {
			if ( is_array( $event ) && isset( $event['slug'], $event['name'] ) ) {
				$events[] = array(
					'slug'      => (string) $event['slug'],
					'name'      => (string) $event['name'],
					'startDate' => isset( $event['startDate'] ) ? (string) $event['startDate'] : null,
					'past'      => 'past=true' === $which,
				);
			}
		}
	}
	return rest_ensure_response( $events );
}
