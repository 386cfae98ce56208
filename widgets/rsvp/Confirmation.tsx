import { useEffect, useRef } from 'preact/hooks';

export interface ConfirmationProps {
  eventName: string;
  tierName: string;
  /** Base64 PNG, as the API answers it. */
  qrCode: string;
  email: string;
  onAgain(): void;
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * The free ticket, in place of the form. Focus moves here so a keyboard or screen reader user
 * lands on the result instead of on a form that is gone.
 */
export function Confirmation({ eventName, tierName, qrCode, email, onAgain }: ConfirmationProps) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => ref.current?.focus(), []);
  return (
    <div class="confirmation" part="confirmation" tabIndex={-1} ref={ref}>
      <p class="confirmed" part="confirmed" role="status">
        You're going! {tierName}, {eventName}.
      </p>
      {BASE64.test(qrCode) && (
        <img
          class="qr"
          part="qr"
          src={`data:image/png;base64,${qrCode}`}
          alt={`Ticket QR code for ${eventName} (${tierName})`}
        />
      )}
      <p class="sent" part="sent">
        Also sent to your e-mail ({email}). Show the code at the door.
      </p>
      <button type="button" class="secondary" part="again" onClick={onAgain}>
        Book another ticket
      </button>
    </div>
  );
}
