import { PageTitle } from '../components/ui.js';
import { BASE } from '../router.js';

export function NotFoundPage() {
  return (
    <>
      <PageTitle title="Not found">Page not found</PageTitle>
      <p>
        There is no console page at this address. <a href={`${BASE}/`}>Go to the overview</a>.
      </p>
    </>
  );
}
