export default function Admin() { return <h1>Admin</h1>; }
