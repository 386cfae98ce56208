import { useEffect, useRef } from 'preact/hooks';

export interface Outcome {
  status: 'APPROVED' | 'PENDING';
  segmentName: string;
  email: string;
}

/**
 * The answer, in place of the form. Focus moves here so a keyboard or screen reader user lands on
 * the result instead of on a form that is gone.
 */
export function Confirmation({ outcome, communityName }: { outcome: Outcome; communityName: string }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => ref.current?.focus(), []);
  const approved = outcome.status === 'APPROVED';
  return (
    <div class="confirmation" part="confirmation" data-status={outcome.status} tabIndex={-1} ref={ref}>
      <p class="confirmed" part="confirmed" role="status">
        {approved
          ? `Welcome to ${communityName}! You're now a member (${outcome.segmentName}).`
          : `Thanks for applying to ${communityName}: we'll review your application.`}
      </p>
      <p class="sent" part="sent">
        {approved
          ? `We've sent a welcome e-mail to ${outcome.email}.`
          : `We'll e-mail ${outcome.email} when the ${outcome.segmentName} membership is decided.`}
      </p>
    </div>
  );
}
