export default function Account() { return <h1>Account</h1>; }
