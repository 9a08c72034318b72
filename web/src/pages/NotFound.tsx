import { Link } from 'react-router';

export default function NotFound() {
  return (
    <>
      <h1>Page not found</h1>
      <p>
        There is no such page. <Link to="/">Go to the start page</Link>.
      </p>
    </>
  );
}
