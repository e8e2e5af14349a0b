(function(){
  document.body.dataset.js='on';
  function openTurn(id){var el=document.getElementById(id);if(el&&el.tagName==='DETAILS'){el.open=true;
    var run=el.closest('details.run');if(run)run.open=true;}}
  function fromHash(){if(location.hash.length>1)openTurn(decodeURIComponent(location.hash.slice(1)));}
  window.addEventListener('hashchange',fromHash);fromHash();
  document.addEventListener('click',function(ev){
    var a=ev.target.closest&&ev.target.closest('a[data-seek]');if(!a)return;
    var audio=document.getElementById(a.getAttribute('data-audio'));if(!audio)return;
    ev.preventDefault();ev.stopPropagation();
    var t=parseFloat(a.getAttribute('data-seek'));
    var go=function(){audio.currentTime=t;var p=audio.play();if(p&&p.catch)p.catch(function(){});};
    if(audio.readyState>=1)go();else audio.addEventListener('loadedmetadata',go,{once:true});
    audio.scrollIntoView({block:'nearest'});
  },true);
  document.querySelectorAll('audio').forEach(function(audio){
    var run=audio.closest('.run');if(!run)return;
    var rows=Array.prototype.slice.call(run.querySelectorAll('details.turn[data-start]'));
    audio.addEventListener('timeupdate',function(){
      var t=audio.currentTime,cur=null;
      rows.forEach(function(r){if(parseFloat(r.getAttribute('data-start'))<=t+0.05)cur=r;});
      rows.forEach(function(r){r.classList.toggle('playing',r===cur);});
      run.setAttribute('data-playing-turn',cur?cur.getAttribute('data-turn'):'');
    });
  });
})();
