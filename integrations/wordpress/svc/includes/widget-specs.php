<?php
/**
 * The eight widgets as blocks and shortcodes: one table, read by the renderer (validation), the
 * shortcodes, the editor script (its controls) and the tests (block.json must agree with it).
 * Pure data on purpose, so `php -r` can read it without WordPress.
 *
 * Attribute keys are the block attributes (camelCase); `html` is the widget's HTML attribute.
 * Types: integer (clamped to min..max), boolean (a bare HTML attribute), enum (one of `values`,
 * anything else dropped), string (kept only when it matches `pattern`, cut to `max` characters).
 * `fallback` is the no-JS link inside the element: its text and the first path on the community's
 * site whose {placeholders} are all set.
 *
 * @package svc
 */

// Not a page of its own: only WordPress (or PHP's command line, for the tests) reads it.
defined( 'ABSPATH' ) || 'cli' === PHP_SAPI || exit;

$svc_locale = array(
	'type'    => 'string',
	'html'    => 'locale',
	'pattern' => '/^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/',
	'max'     => 35,
	'label'   => 'Locale (BCP 47, e.g. en-GB)',
);
$svc_slug = '/^[a-z0-9]+(-[a-z0-9]+)*$/';
// A link template (docs/widgets.md, "Where links go"): a path on this WordPress site or an
// http(s) address, with {placeholders}; the widget checks the placeholders and falls back to the
// community's own page for one it does not know.
$svc_link_template = '#^(/(?!/)|https?://)[^\s"<>\\\\]*$#';
// site-href's: as above, or `{path}` first (the community's paths at the same paths here).
// Never a `/` right before `{path}`: the path starts with one, and `//` would read as a host
// (`/{path}` would send /events to https://events/).
$svc_site_template = '#^(?!.*/\{path\})(\{path\}|/(?!/)|https?://)[^\s"<>\\\\]*$#';
// A site path such as /events: no scheme, no protocol-relative //host.
$svc_path = '#^/(?!/)[A-Za-z0-9._~!$&\'()*+,;=:@%/-]*$#';
// On a WordPress page the theme's template part owns the banner/contentinfo landmark.
$svc_landmarks = array(
	'type'    => 'enum',
	'html'    => 'landmarks',
	'values'  => array( 'none', 'own' ),
	'default' => 'none',
	'omit'    => 'own',
	'label'   => 'Landmark',
);

return array(
	'events'        => array(
		'tag'        => 'svc-events',
		'title'      => 'svc Events',
		'fallback'   => array( array( '/events' ), 'Our events' ),
		'attributes' => array(
			'limit'    => array( 'type' => 'integer', 'html' => 'limit', 'min' => 1, 'max' => 100, 'default' => 10, 'label' => 'Events per page' ),
			'featured' => array( 'type' => 'boolean', 'html' => 'featured', 'default' => false, 'label' => 'Only the featured event' ),
			'past'     => array( 'type' => 'boolean', 'html' => 'past', 'default' => false, 'label' => 'Past events' ),
			'eventHref' => array( 'type' => 'string', 'html' => 'event-href', 'pattern' => $svc_link_template, 'max' => 300, 'label' => 'Event link (e.g. /events/{slug}; empty: the community site)' ),
			'locale'   => $svc_locale,
		),
	),
	'rsvp'          => array(
		'tag'        => 'svc-rsvp',
		'title'      => 'svc RSVP',
		'fallback'   => array( array( '/events/{event}', '/events' ), 'Get tickets' ),
		'attributes' => array(
			'event'  => array( 'type' => 'string', 'html' => 'event', 'pattern' => $svc_slug, 'max' => 120, 'label' => 'Event', 'picker' => 'events' ),
			'locale' => $svc_locale,
		),
	),
	'donate'        => array(
		'tag'        => 'svc-donate',
		'title'      => 'svc Donate',
		'fallback'   => array( array( '/marketplace/{sku}', '/events/{event}', '/' ), 'Give on our site' ),
		'attributes' => array(
			'sku'    => array( 'type' => 'string', 'html' => 'sku', 'pattern' => '/^[A-Za-z0-9._-]+$/', 'max' => 120, 'label' => 'Product SKU' ),
			'event'  => array( 'type' => 'string', 'html' => 'event', 'pattern' => $svc_slug, 'max' => 120, 'label' => 'Event', 'picker' => 'events' ),
			'mode'   => array( 'type' => 'enum', 'html' => 'mode', 'values' => array( 'inline', 'button' ), 'default' => 'inline', 'omit' => 'inline', 'label' => 'Display' ),
			'locale' => $svc_locale,
		),
	),
	'donate-button' => array(
		'tag'        => 'svc-donate',
		'title'      => 'svc Donate button',
		'fixed'      => array( 'mode' => 'button' ),
		'fallback'   => array( array( '/marketplace/{sku}', '/events/{event}', '/' ), 'Donate' ),
		'attributes' => array(
			'sku'    => array( 'type' => 'string', 'html' => 'sku', 'pattern' => '/^[A-Za-z0-9._-]+$/', 'max' => 120, 'label' => 'Product SKU' ),
			'event'  => array( 'type' => 'string', 'html' => 'event', 'pattern' => $svc_slug, 'max' => 120, 'label' => 'Event', 'picker' => 'events' ),
			'locale' => $svc_locale,
		),
	),
	'apply'         => array(
		'tag'        => 'svc-apply',
		'title'      => 'svc Apply',
		'fallback'   => array( array( '/apply' ), 'Join us' ),
		'attributes' => array(
			'segment' => array( 'type' => 'string', 'html' => 'segment', 'pattern' => '/^[^<>"\'&\x00-\x1f]+$/u', 'max' => 200, 'label' => 'Segment (id or name; empty: the visitor picks)' ),
			'source'  => array( 'type' => 'string', 'html' => 'source', 'pattern' => '/^[^\x00-\x1f]+$/u', 'max' => 200, 'label' => 'Source (attribution)' ),
			'locale'  => $svc_locale,
		),
	),
	'members'       => array(
		'tag'        => 'svc-members',
		'title'      => 'svc Members',
		'fallback'   => array( array( '/members' ), 'Meet our members' ),
		'attributes' => array(
			'limit'  => array( 'type' => 'integer', 'html' => 'limit', 'min' => 1, 'max' => 100, 'default' => 12, 'label' => 'Members per page' ),
			'memberHref' => array( 'type' => 'string', 'html' => 'member-href', 'pattern' => $svc_link_template, 'max' => 300, 'label' => 'Member link (e.g. /members/{usertag}; empty: the community site)' ),
			'locale' => $svc_locale,
		),
	),
	'header'        => array(
		'tag'        => 'svc-header',
		'title'      => 'svc Header',
		'fallback'   => array( array( '/' ), 'Our community' ),
		'attributes' => array(
			'current'   => array( 'type' => 'string', 'html' => 'current', 'pattern' => $svc_path, 'max' => 300, 'label' => 'Current path (e.g. /events)' ),
			'landmarks' => $svc_landmarks,
			'siteHref' => array( 'type' => 'string', 'html' => 'site-href', 'pattern' => $svc_site_template, 'max' => 300, 'label' => 'Site links (e.g. /community{path}; empty: the community site)' ),
			'locale'    => $svc_locale,
		),
	),
	'footer'        => array(
		'tag'        => 'svc-footer',
		'title'      => 'svc Footer',
		'fallback'   => array( array( '/' ), 'Our community' ),
		'attributes' => array(
			'route'     => array( 'type' => 'string', 'html' => 'route', 'pattern' => '#^/?[A-Za-z0-9._~-]+(/[A-Za-z0-9._~-]+)*/?$|^/$#', 'max' => 200, 'label' => 'Route (e.g. /events)' ),
			'landmarks' => $svc_landmarks,
			'siteHref'  => array( 'type' => 'string', 'html' => 'site-href', 'pattern' => $svc_site_template, 'max' => 300, 'label' => 'Site links (e.g. /community{path}; empty: the community site)' ),
			'locale'    => $svc_locale,
		),
	),
);
