// The local payment gateway's hosted checkout page, pressed as the buyer's browser would.

/** Presses Pay on the checkout page at `checkoutUrl` (with `email` typed in, when it asks for one); the redirect is not followed. */
export function pay(checkoutUrl: string, email?: string): Promise<Response> {
  return fetch(`${checkoutUrl}/pay`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Sec-Fetch-Site': 'same-origin' },
    body: email ? new URLSearchParams({ email }).toString() : '',
  });
}
